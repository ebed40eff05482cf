import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { startFakeSlack, type FakeSlack } from '../../src/dev/fake-slack/index.js';
import { PermanentDeliveryError, RetryableDeliveryError, type ReleaseNotification } from '../../src/notify/contract.js';
import { ConfigMapMessageStore, SLACK_MESSAGES_CONFIGMAP } from '../../src/notify/providers/slack/message-store.js';
import { PHASE_COLOR } from '../../src/notify/providers/slack/render.js';
import { SlackProvider } from '../../src/notify/providers/slack/slack-provider.js';
import { slackThreadReader } from '../../src/core/links/slack-thread.js';
import { WebClient } from '@slack/web-api';
import { deleteNamespace, freshNamespace, testEnv, uniqueName } from '../support/fixtures.js';

const TOKEN = 'xoxb-secret-provider-token-123';

/** Log lines as text, so a test can look for the token in them. */
function capturingLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { log: pino({ level: 'debug' }, stream), lines };
}

describe('Slack provider against the fake Slack and the real API server', () => {
  const { kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  let slack: FakeSlack;
  let namespace: string;
  const logs = capturingLogger();
  const errors: Error[] = [];

  const provider = (webUrl?: string) =>
    new SlackProvider({
      config: { botToken: TOKEN, apiUrl: slack.apiUrl, timeoutMs: 5000, ...(webUrl ? { webUrl } : {}) },
      store: new ConfigMapMessageStore(kube),
      log: logs.log,
    });

  function notification(operationId: string, id: string, overrides: Partial<ReleaseNotification> = {}): ReleaseNotification {
    return {
      id,
      operationId,
      event: 'UpgradeFailed',
      severity: 'error',
      release: { namespace, name: 'unicorn', releaseName: 'unicorn', targetNamespace: namespace, chart: 'unicorn', labels: {} },
      fromVersion: '2.0.0',
      toVersion: '3.0.0',
      cause: 'spec change (generation 4)',
      message: 'upgrade failed',
      at: new Date().toISOString(),
      ...overrides,
    };
  }

  /** What the notify queue does: retry a retryable failure after Retry-After (or a short backoff). */
  async function deliverLikeTheQueue(p: SlackProvider, n: ReleaseNotification, channel: string): Promise<number> {
    for (let retries = 0; ; retries++) {
      try {
        await p.deliver(n, { kind: 'slack', channel }, 'frontend');
        return retries;
      } catch (error) {
        errors.push(error as Error);
        if (!(error instanceof RetryableDeliveryError) || retries > 10) throw error;
        await new Promise((r) => setTimeout(r, error.retryAfterMs ?? 100));
      }
    }
  }

  async function failure(promise: Promise<unknown>): Promise<Error> {
    const error = (await promise.then(
      () => undefined,
      (e: unknown) => e,
    )) as Error | undefined;
    expect(error).toBeInstanceOf(Error);
    errors.push(error!);
    return error!;
  }

  const attachmentColor = (m: { attachments?: unknown[] }) => (m.attachments?.[0] as { color?: string } | undefined)?.color;

  beforeAll(async () => {
    namespace = await freshNamespace(kubeConfig, 'slack');
    slack = await startFakeSlack({
      tokens: [TOKEN],
      channels: [{ name: 'frontend-releases' }, { name: 'burst' }, { name: 'limits' }, { name: 'pages' }, { name: 'outside', isMember: false }],
    });
  });
  afterAll(async () => {
    await slack?.stop();
    await deleteNamespace(kubeConfig, namespace);
  });

  it('first notification posts; later ones of the same operation edit that message and add thread replies', async () => {
    const p = provider();
    const op = uniqueName('op');
    await deliverLikeTheQueue(
      p,
      notification(op, 'a1', { event: 'ChartPullFailed', message: 'chart pull failed: 503 from the repository' }),
      '#frontend-releases',
    );
    const [message] = slack.messages('frontend-releases');
    expect(message).toBeDefined();
    expect(attachmentColor(message!)).toBe(PHASE_COLOR.failed);

    await deliverLikeTheQueue(p, notification(op, 'a2', { event: 'UpgradeSucceeded', severity: 'info', message: 'upgraded to 3.0.0' }), '#frontend-releases');
    const messages = slack.messages('frontend-releases');
    expect(messages).toHaveLength(1);
    expect(messages[0]!.ts).toBe(message!.ts);
    expect(messages[0]!.edits).toHaveLength(1);
    expect(messages[0]!.text).toContain('Upgraded');
    expect(attachmentColor(messages[0]!)).toBe(PHASE_COLOR.succeeded);
    expect(JSON.stringify(messages[0]!.attachments)).not.toContain('release_rollback');
    expect(slack.replies('frontend-releases', message!.ts).map((r) => r.text)).toEqual([
      'Chart pull failed: chart pull failed: 503 from the repository',
      'Upgraded: upgraded to 3.0.0',
    ]);
    // Without HELMCREW_WEB_URL nothing links to a web page.
    expect(JSON.stringify([messages[0], ...slack.replies('frontend-releases', message!.ts)])).not.toContain('/releases/');
  });

  it('with HELMCREW_WEB_URL the message and its replies link the release page; the page finds the thread from the API server', async () => {
    const op = uniqueName('op');
    const p = provider('https://helmcrew.example.org');
    await deliverLikeTheQueue(p, notification(op, 'w1', { event: 'UpgradeFailed', message: 'upgrade failed' }), 'pages');
    await deliverLikeTheQueue(p, notification(op, 'w2', { event: 'RollbackSucceeded', severity: 'info', message: 'rolled back' }), 'pages');
    const top = slack.messages('pages').at(-1)!;
    const link = `<https://helmcrew.example.org/releases/-/${namespace}/unicorn|page>`;
    expect(JSON.stringify(top.attachments)).toContain(link);
    expect(top.edits.length).toBeGreaterThan(0);
    const replies = slack.replies('pages', top.ts);
    expect(replies).toHaveLength(2);
    for (const reply of replies) expect(JSON.stringify(reply.blocks)).toContain(link);

    // The web's side: notify's message map (the ConfigMap), then Slack's permalink of that message.
    const web = new WebClient(TOKEN, { slackApiUrl: slack.apiUrl });
    const thread = slackThreadReader(kube, async (ref) => (await web.chat.getPermalink({ channel: ref.channelId, message_ts: ref.ts })).permalink);
    expect(await thread(namespace, 'unicorn')).toMatch(new RegExp(`^https://[a-z]+\\.slack\\.invalid/archives/${top.channel}/p${top.ts.replace('.', '')}$`));
    expect(await thread(namespace, 'no-such-release')).toBeUndefined();
    expect(await thread('no-such-namespace', 'unicorn')).toBeUndefined();
  });

  it('a redelivered notification changes nothing', async () => {
    const p = provider();
    const op = uniqueName('op');
    const n = notification(op, 'r1');
    await deliverLikeTheQueue(p, n, '#frontend-releases');
    const before = slack.calls().length;
    await p.deliver(n, { kind: 'slack', channel: '#frontend-releases' }, 'frontend');
    await provider().deliver(n, { kind: 'slack', channel: '#frontend-releases' }, 'frontend');
    expect(slack.calls().length).toBe(before);
  });

  it('a new provider instance (notify restarted, Redis wiped) edits the same message: the reference is in the API server', async () => {
    const op = uniqueName('op');
    await deliverLikeTheQueue(provider(), notification(op, 's1', { event: 'UpgradeFailed' }), 'burst');
    const top = slack.messages('burst').at(-1)!;
    const map = await kube.core.readNamespacedConfigMap({ name: SLACK_MESSAGES_CONFIGMAP, namespace });
    expect(Object.values(map.data ?? {}).some((v) => v.includes(top.ts))).toBe(true);

    const restarted = provider();
    await deliverLikeTheQueue(
      restarted,
      notification(op, 's2', { event: 'RollbackSucceeded', severity: 'info', message: 'rolled back to revision 3' }),
      'burst',
    );
    const after = slack.messages('burst').filter((m) => m.ts === top.ts);
    expect(after).toHaveLength(1);
    expect(after[0]!.text).toContain('Rolled back');
    expect(slack.messages('burst').at(-1)!.ts).toBe(top.ts);
  });

  it('a 20-event burst for one operation is one message plus updates; repeated details make one thread reply', async () => {
    const p = provider();
    const op = uniqueName('op');
    const postsBefore = slack.okCalls('chat.postMessage').filter((c) => !c.params.thread_ts).length;
    const events: Array<Partial<ReleaseNotification>> = [
      ...Array.from({ length: 15 }, () => ({ event: 'ChartPullFailed' as const, message: 'chart pull failed: connection refused' })),
      ...Array.from({ length: 4 }, () => ({ event: 'UpgradeFailed' as const, message: 'upgrade failed', errorExcerpt: 'Error: UPGRADE FAILED: timed out' })),
      { event: 'RollbackSucceeded' as const, severity: 'info' as const, message: 'rolled back' },
    ];
    let retries = 0;
    for (const [i, e] of events.entries()) {
      // Event 15 is the first UpgradeFailed: its edit succeeds, then its thread reply meets a 429.
      if (i === 15) slack.failNext(1, { kind: 'ratelimited', retryAfterSeconds: 1 }, ['chat.postMessage']);
      retries += await deliverLikeTheQueue(p, notification(op, `b${i}`, e), 'limits');
    }

    const topLevelPosts = slack.okCalls('chat.postMessage').filter((c) => !c.params.thread_ts).length - postsBefore;
    expect(topLevelPosts).toBe(1);
    const [message] = slack.messages('limits');
    // 19 edits: the retried delivery did not edit the message a second time.
    expect(message!.edits).toHaveLength(19);
    expect(slack.replies('limits', message!.ts)).toHaveLength(3);
    expect(attachmentColor(message!)).toBe(PHASE_COLOR.succeeded);
    // Retries after a 429 on a thread reply did not count an event twice.
    expect(JSON.stringify(message!.attachments)).toContain('Chart pull failed ×15');
    expect(JSON.stringify(message!.attachments)).toContain('Upgrade failed ×4');
    expect(retries).toBeGreaterThanOrEqual(1);
  });

  it('429 → RetryableDeliveryError with the server’s Retry-After', async () => {
    slack.failNext(1, { kind: 'ratelimited', retryAfterSeconds: 7 }, ['chat.postMessage']);
    const error = await failure(provider().deliver(notification(uniqueName('op'), 'l1'), { kind: 'slack', channel: 'frontend-releases' }, 'frontend'));
    expect(error).toBeInstanceOf(RetryableDeliveryError);
    expect((error as RetryableDeliveryError).retryAfterMs).toBe(7000);
  });

  it('the channel’s own rate limit (1/s, short bursts) also comes back as Retryable with Retry-After', async () => {
    const p = provider();
    slack.addChannel({ name: 'busy' });
    const outcomes: Array<number | undefined | 'ok'> = [];
    for (let i = 0; i < 5; i++) {
      // Each operation's first delivery is a chat.postMessage plus its thread reply.
      const result = await p.deliver(notification(uniqueName('op'), `busy${i}`), { kind: 'slack', channel: 'busy' }, 'frontend').then(
        () => 'ok' as const,
        (e: unknown) => (e instanceof RetryableDeliveryError ? e.retryAfterMs : -1),
      );
      outcomes.push(result);
    }
    expect(outcomes).toContain(1000);
    expect(outcomes).not.toContain(-1);
  });

  it.each([
    { name: '500', fault: { kind: 'status', status: 500 } as const },
    { name: 'a dropped connection', fault: { kind: 'drop' } as const },
  ])('$name → RetryableDeliveryError', async ({ fault }) => {
    slack.failNext(1, fault, ['chat.postMessage']);
    const error = await failure(provider().deliver(notification(uniqueName('op'), 'f1'), { kind: 'slack', channel: 'frontend-releases' }, 'frontend'));
    expect(error).toBeInstanceOf(RetryableDeliveryError);
  });

  it.each([
    { name: 'unknown channel', channel: '#no-such-channel', code: 'channel_not_found' },
    { name: 'bot not in the channel', channel: 'outside', code: 'not_in_channel' },
  ])('$name → PermanentDeliveryError($code)', async ({ channel, code }) => {
    const error = await failure(provider().deliver(notification(uniqueName('op'), 'c1'), { kind: 'slack', channel }, 'frontend'));
    expect(error).toBeInstanceOf(PermanentDeliveryError);
    expect((error as PermanentDeliveryError).code).toBe(code);
  });

  it('a revoked token → PermanentDeliveryError(token_revoked)', async () => {
    slack.setToken(TOKEN, 'revoked');
    try {
      const error = await failure(provider().deliver(notification(uniqueName('op'), 't1'), { kind: 'slack', channel: 'frontend-releases' }, 'frontend'));
      expect(error).toBeInstanceOf(PermanentDeliveryError);
      expect((error as PermanentDeliveryError).code).toBe('token_revoked');
    } finally {
      slack.setToken(TOKEN, 'valid');
    }
  });

  it('the API server refusing the first save → Retryable; the retry edits the message it already posted', async () => {
    const real = new ConfigMapMessageStore(kube);
    let failSaves = 1;
    const flaky = {
      load: real.load.bind(real),
      save: async (ns: string, state: Parameters<ConfigMapMessageStore['save']>[1]) => {
        if (failSaves-- > 0) throw new Error('the API server is unavailable');
        return real.save(ns, state);
      },
    };
    const p = new SlackProvider({ config: { botToken: TOKEN, apiUrl: slack.apiUrl, timeoutMs: 5000 }, store: flaky, log: logs.log });
    slack.addChannel({ name: 'flaky' });
    const op = uniqueName('op');
    const error = await failure(p.deliver(notification(op, 'k1'), { kind: 'slack', channel: 'flaky' }, 'frontend'));
    expect(error).toBeInstanceOf(RetryableDeliveryError);
    await deliverLikeTheQueue(p, notification(op, 'k1'), 'flaky');
    expect(slack.messages('flaky')).toHaveLength(1);
    expect(slack.replies('flaky', slack.messages('flaky')[0]!.ts)).toHaveLength(1);
    // And the reference did reach the API server: a fresh instance edits the same message.
    await deliverLikeTheQueue(provider(), notification(op, 'k2', { event: 'RollbackSucceeded', severity: 'info' }), 'flaky');
    expect(slack.messages('flaky')).toHaveLength(1);
    expect(slack.messages('flaky')[0]!.text).toContain('Rolled back');
  });

  it('a release message deleted by someone is posted anew rather than failing forever', async () => {
    const p = provider();
    const op = uniqueName('op');
    await deliverLikeTheQueue(p, notification(op, 'd1'), 'frontend-releases');
    const first = slack.messages('frontend-releases').at(-1)!;
    first.deleted = true;
    await deliverLikeTheQueue(p, notification(op, 'd2', { event: 'RollbackSucceeded', severity: 'info' }), 'frontend-releases');
    const second = slack.messages('frontend-releases').at(-1)!;
    expect(second.ts).not.toBe(first.ts);
    expect(second.text).toContain('Rolled back');
  });

  it('the token never appears in logs, errors, messages or the stored references', async () => {
    expect(errors.length).toBeGreaterThan(3);
    expect(logs.lines.length).toBeGreaterThan(0);
    const map = await kube.core.readNamespacedConfigMap({ name: SLACK_MESSAGES_CONFIGMAP, namespace });
    const everything = [
      ...logs.lines,
      ...errors.map((e) => `${e.name} ${e.message} ${e.stack}`),
      JSON.stringify(slack.workspace.messages),
      JSON.stringify(map),
    ].join('\n');
    expect(everything).not.toContain(TOKEN);
  });
});

describe('ConfigMap message store', () => {
  it('keeps at most maxEntries operations per namespace, evicting the least recently updated', async () => {
    const { kubeConfig } = testEnv();
    const kube = makeKubeClients(kubeConfig);
    const namespace = await freshNamespace(kubeConfig, 'slackstore');
    try {
      const store = new ConfigMapMessageStore(kube, 3);
      for (let i = 0; i < 5; i++) {
        await store.save(namespace, {
          operationId: `op${i}`,
          channelRef: '#c',
          channelId: 'C1',
          ts: `1.00000${i}`,
          release: `${namespace}/x`,
          timeline: [],
          delivered: [],
          updatedAt: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString(),
          version: 1,
        });
      }
      const map = await kube.core.readNamespacedConfigMap({ name: SLACK_MESSAGES_CONFIGMAP, namespace });
      expect(Object.keys(map.data ?? {})).toHaveLength(3);
      expect(await store.load(namespace, 'op0', '#c')).toBeUndefined();
      expect((await store.load(namespace, 'op4', '#c'))?.ts).toBe('1.000004');
      expect(await store.load(namespace, 'op4', '#other')).toBeUndefined();
    } finally {
      await deleteNamespace(kubeConfig, namespace);
    }
  });
});
