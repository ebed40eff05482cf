import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TeamApi } from '../../src/core/kube/team-api.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { connectRedis } from '../../src/core/redis.js';
import { startFakeSlack, type FakeMessage, type FakeSlack } from '../../src/dev/fake-slack/index.js';
import { applyHelmRelease, ensureNamespace, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { createLogger } from '../../src/core/log.js';
import { NotifyPublisher } from '../../src/notify/publish/publisher.js';
import { PHASE_COLOR } from '../../src/notify/providers/slack/render.js';
import { deleteNamespace, startTestController, testEnv, uniqueName, type TestController } from '../support/fixtures.js';
import { createTeam, deleteTeams, notificationFor } from '../support/notify-fixtures.js';
import { spawnNotify } from '../support/notify-process.js';
import { eventually } from '../support/eventually.js';

const TOKEN = 'xoxb-notify-slack-e2e-token';

async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  await eventually(async () => expect(await check(), what).toBe(true), { timeoutMs, intervalMs: 200 });
}

const color = (m: FakeMessage) => (m.attachments?.[0] as { color?: string } | undefined)?.color;
const hasButtons = (m: FakeMessage) => JSON.stringify(m.attachments).includes('release_rollback');

/**
 * Issue 6 with Slack: the real controller publishes, a `helmcrew notify` process (its own OS
 * process, SLACK_API_URL pointing at the local fake Slack) routes and delivers. Each operation is
 * one message edited in place; the reference survives a notify restart with a wiped Redis.
 */
describe('notify → Slack, end to end', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const ns = uniqueName('slackprod');
  let slack: FakeSlack;
  let ctl: TestController;
  let run: string;
  let dir: string;
  const children: ResultPromise[] = [];
  const startNotify = () => {
    const child = spawnNotify(env, run, join(dir, `notify-${children.length}.log`), {
      SLACK_BOT_TOKEN: TOKEN,
      SLACK_API_URL: slack.apiUrl,
      HELMCREW_NOTIFY_RATE_PER_SECOND: '5',
      HELMCREW_NOTIFY_RATE_BURST: '5',
    });
    children.push(child);
    return child;
  };

  beforeAll(async () => {
    slack = await startFakeSlack({ tokens: [TOKEN], channels: [{ name: 'oncall' }, { name: 'frontend' }, { name: 'wipe' }] });
    await ensureNamespace(kubeConfig, ns);
    ctl = await startTestController([ns]);
    run = ctl.prefix;
    dir = await mkdtemp(join(tmpdir(), 'helmcrew-notify-slack-'));
    await createTeam(kube, run, `${run}-oncall`, { subscriptions: [{ namespaces: [ns], severity: 'error' }], channels: [{ slack: '#oncall' }] });
    await createTeam(kube, run, `${run}-frontend`, { subscriptions: [{ charts: ['unicorn'], namespaces: [ns] }], channels: [{ slack: '#frontend' }] });
    await createTeam(kube, run, `${run}-wipe`, { subscriptions: [{ releases: [`${ns}/wiped`] }], channels: [{ slack: '#wipe' }] });
    void startNotify(); // a child process, kept in `children` and stopped in afterAll
  });
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await Promise.all(children);
    await ctl?.stop();
    await slack?.stop();
    await deleteTeams(kube, run);
    await deleteNamespace(kubeConfig, ns);
  });

  const declare = (version: string) =>
    applyHelmRelease(kubeConfig, helmReleaseObject(ns, 'unicorn', { chart: { repository: env.chartRepoUrl, name: 'unicorn', version }, timeout: '20s' }));

  it('install then a broken upgrade: one message per operation, edited as it moves; on-call gets only the failure, with buttons', async () => {
    await waitForReconciled(kubeConfig, ns, 'unicorn', await declare('1.0.0'));
    await waitUntil(() => slack.messages('frontend').some((m) => m.text.includes('Installed')), 60_000, 'the install message to read Installed');
    await waitForReconciled(kubeConfig, ns, 'unicorn', await declare('4.0.0'));
    await waitUntil(() => slack.messages('frontend').some((m) => m.text.includes('Upgrade failed')), 60_000, 'the upgrade message to read Upgrade failed');
    await waitUntil(() => slack.messages('oncall').length > 0, 30_000, 'on-call to hear the failure');
    await new Promise((r) => setTimeout(r, 3000)); // late deliveries would show up here

    const frontend = slack.messages('frontend');
    expect(frontend.map((m) => m.text)).toEqual([`${ns}/unicorn: Installed (1.0.0)`, `${ns}/unicorn: Upgrade failed (1.0.0 → 4.0.0)`]);
    // Whether "Installing…"/"Upgrading…" was shown first depends on notify's coalescing (a start
    // still waiting when its outcome arrives is folded into it); any edit went to the same message.
    for (const m of frontend) for (const e of m.edits) expect(e.text).toMatch(/: (Installing|Upgrading) /);
    expect(frontend.map(color)).toEqual([PHASE_COLOR.succeeded, PHASE_COLOR.failed]);
    expect(frontend.map(hasButtons)).toEqual([false, true]);
    // Details in the thread: helm's error under the failed upgrade.
    expect(
      slack
        .replies('frontend', frontend[1]!.ts)
        .map((r) => r.text)
        .join('\n'),
    ).toMatch(/80800/);

    const oncall = slack.messages('oncall');
    expect(oncall).toHaveLength(1);
    expect(oncall[0]!.text).toContain('Upgrade failed');
    expect(hasButtons(oncall[0]!)).toBe(true);
    expect(slack.okCalls('chat.postMessage').filter((c) => !c.params.thread_ts)).toHaveLength(3);
  });

  it('notify killed and Redis wiped mid-operation: the operation’s later update still edits the same message', async () => {
    const redis = connectRedis(env.redisUrl);
    const publisher = new NotifyPublisher({ connection: redis, prefix: run, log: createLogger('test', 'warn') });
    try {
      const release = { namespace: ns, name: 'wiped', chart: 'narwhal' };
      const operation = uniqueName('op');
      await publisher.publish(notificationFor(release, 'UpgradeStarted', operation));
      await waitUntil(() => slack.messages('wipe').length === 1, 30_000, 'the first message');
      const first = slack.messages('wipe')[0]!;

      for (const child of children) child.kill('SIGKILL');
      await Promise.all(children);
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${run}:*`, 'COUNT', 500);
        cursor = next;
        if (keys.length) await redis.del(...keys);
      } while (cursor !== '0');
      expect(await redis.keys(`${run}:*`)).toEqual([]);

      void startNotify(); // a child process, kept in `children` and stopped in afterAll
      await publisher.publish(notificationFor(release, 'UpgradeSucceeded', operation));
      await waitUntil(() => slack.messages('wipe')[0]!.text.includes('Upgraded'), 30_000, 'the same message to read Upgraded');
      const [message] = slack.messages('wipe');
      expect(slack.messages('wipe')).toHaveLength(1);
      expect(message!.ts).toBe(first.ts);
      expect(message!.edits.map((e) => e.text)).toEqual([`${ns}/wiped: Upgrading`]);
      expect(color(message!)).toBe(PHASE_COLOR.succeeded);
    } finally {
      await publisher.close();
      redis.disconnect();
    }
  });

  it('a revoked token: the Team’s status says token_revoked; nothing is retried forever; the token is in no log', async () => {
    slack.setToken(TOKEN, 'revoked');
    const redis = connectRedis(env.redisUrl);
    const publisher = new NotifyPublisher({ connection: redis, prefix: run, log: createLogger('test', 'warn') });
    try {
      const start = slack.calls('chat.postMessage').length;
      // The failure goes to two Teams: #wipe (this release) and #oncall (errors in the namespace).
      await publisher.publish(notificationFor({ namespace: ns, name: 'wiped', chart: 'narwhal' }, 'UpgradeFailed', uniqueName('op')));
      const teams = new TeamApi(kube);
      const revoked = [`${run}-wipe`, `${run}-oncall`];
      await waitUntil(
        async () => {
          const items = (await teams.list(`helmcrew.dev/test-run=${run}`)).items;
          return revoked.every((name) => items.some((t) => t.metadata.name === name && t.status?.channels?.some((c) => c.errorCode === 'token_revoked')));
        },
        30_000,
        'both Teams’ status to record token_revoked',
      );
      await new Promise((r) => setTimeout(r, 3000)); // a retry would show up here
      // One attempt per channel, refused for good: none is repeated.
      // (A thread reply of the previous test's operation may still land here, late, under load.)
      const attempts = slack
        .calls('chat.postMessage')
        .slice(start)
        .filter((c) => !c.params.thread_ts);
      expect(
        attempts.map((c) => c.error),
        JSON.stringify(attempts),
      ).toEqual(['token_revoked', 'token_revoked']);
      expect(new Set(attempts.map((c) => c.params.channel)).size).toBe(2);
    } finally {
      slack.setToken(TOKEN, 'valid');
      await publisher.close();
      redis.disconnect();
    }
    for (let i = 0; i < children.length; i++) expect(await readFile(join(dir, `notify-${i}.log`), 'utf8')).not.toContain(TOKEN);
  });
});
