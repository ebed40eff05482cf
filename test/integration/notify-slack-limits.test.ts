import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReleaseEvent } from '../../src/api/vocabulary.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { createLogger } from '../../src/core/log.js';
import { connectRedis } from '../../src/core/redis.js';
import { startFakeSlack, type FakeSlack } from '../../src/dev/fake-slack/index.js';
import { NotifyPublisher } from '../../src/notify/publish/publisher.js';
import { deleteNamespace, freshNamespace, testEnv, uniqueName } from '../support/fixtures.js';
import { createTeam, deleteTeams, notificationFor } from '../support/notify-fixtures.js';
import { spawnNotify } from '../support/notify-process.js';
import { eventually } from '../support/eventually.js';

const TOKEN = 'xoxb-notify-slack-limits-token';

/** `what` describes the state seen, so a time-out says where it stopped. */
async function waitUntil(check: () => boolean, timeoutMs: number, what: () => string): Promise<void> {
  await eventually(() => expect(check(), what()).toBe(true), { timeoutMs, intervalMs: 200 });
}

const tooMany = (slack: FakeSlack, method: string) => slack.calls(method).filter((c) => c.status === 429);

/**
 * Issue 21's Slack limits, against `helmcrew notify` processes and the local fake Slack, which
 * answers 429 as Slack does: chat.postMessage (thread replies included) per channel, chat.update
 * from one Tier 3 bucket for the whole workspace. The fake's limits are made tight so that a
 * notify which did not count a thread reply, or reserved chat.update per replica, meets 429s.
 */
describe('notify keeps to Slack’s limits', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const redis = connectRedis(env.redisUrl);
  const children: ResultPromise[] = [];
  let namespace: string;
  let dir: string;

  beforeAll(async () => {
    namespace = await freshNamespace(kubeConfig, 'slacklimits');
    dir = await mkdtemp(join(tmpdir(), 'helmcrew-slack-limits-'));
  });
  afterAll(async () => {
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(children);
    redis.disconnect();
    await deleteNamespace(kubeConfig, namespace);
  });

  /** A run: its own queue prefix, Teams, fake Slack and notify replicas. */
  async function setUp(
    label: string,
    slackLimits: Parameters<typeof startFakeSlack>[0],
    teams: Array<{ channel: string; releases: string[] }>,
    replicaEnv: Record<string, string>,
    replicas: number,
  ) {
    const run = uniqueName(label);
    const slack = await startFakeSlack({ tokens: [TOKEN], ...slackLimits });
    for (const [i, team] of teams.entries()) {
      if (!slack.channel(team.channel)) slack.addChannel({ name: team.channel });
      await createTeam(kube, run, `${run}-t${i}`, { subscriptions: [{ releases: team.releases }], channels: [{ slack: `#${team.channel}` }] });
    }
    const logs: string[] = [];
    for (let r = 0; r < replicas; r++) {
      const log = join(dir, `${run}-notify-${r}.log`);
      logs.push(log);
      children.push(spawnNotify(env, run, log, { SLACK_BOT_TOKEN: TOKEN, SLACK_API_URL: slack.apiUrl, ...replicaEnv }));
    }
    // Every replica up before the first notification, so the work is shared from the start.
    for (const log of logs) {
      await eventually(async () => expect(await readFile(log, 'utf8').catch(() => '')).toContain('"msg":"notify started"'), {
        timeoutMs: 60_000,
        intervalMs: 200,
      });
    }
    const publisher = new NotifyPublisher({ connection: redis, prefix: run, log: createLogger('test', 'warn') });
    const publish = (name: string, event: ReleaseEvent, op: string) => publisher.publish(notificationFor({ namespace, name }, event, `uid-${name}:3:${op}`));
    const done = async () => {
      await publisher.close();
      await deleteTeams(kube, run);
      await slack.stop();
    };
    return { run, slack, logs, publish, done };
  }

  it('chat.update: two notify replicas share one workspace-wide bucket, so Slack’s Tier 3 never answers 429', async () => {
    // The fake's workspace allows 3 edits at once, then one a second; notify's share is 48 a minute
    // (Slack's Tier 3 and notify's default, both doubled: the same race in half the time).
    const names = Array.from({ length: 10 }, (_, i) => `edit-${i}`);
    const { slack, logs, publish, done } = await setUp(
      'hc-update-tier',
      { rateLimits: { methods: { 'chat.update': { burst: 3, perSecond: 1 } } } },
      names.map((name) => ({ channel: `c-${name}`, releases: [`${namespace}/${name}`] })),
      { HELMCREW_SLACK_UPDATE_PER_MINUTE: '48', HELMCREW_SLACK_UPDATE_BURST: '3', HELMCREW_NOTIFY_CONCURRENCY: '2' },
      2,
    );
    try {
      for (const name of names) await publish(name, 'UpgradeStarted', 'upgrade:a');
      await waitUntil(
        () => names.every((n) => slack.messages(`c-${n}`).length === 1),
        60_000,
        () => 'every release’s first message',
      );
      for (const name of names) await publish(name, 'UpgradeSucceeded', 'upgrade:a');
      const upgraded = () => names.filter((n) => /: Upgraded/.test(slack.messages(`c-${n}`)[0]?.text ?? '')).length;
      await waitUntil(
        () => upgraded() === names.length,
        90_000,
        () => `every message edited to Upgraded (${upgraded()} of ${names.length})`,
      );
      expect(tooMany(slack, 'chat.update')).toEqual([]);
      expect(slack.okCalls('chat.update')).toHaveLength(names.length);
      // The edits were paced, not sent at once: 10 with a burst of 3 at 48 a minute take ≥ 7.5 s.
      const at = slack.okCalls('chat.update').map((c) => c.at);
      expect(Math.max(...at) - Math.min(...at)).toBeGreaterThanOrEqual(7_500);
      // Both replicas delivered under the one bucket: an edit made ("slack: delivered"), or an outcome
      // sent ahead because the shared bucket's next slot was too far off (a replica can have only those:
      // a CI run had one replica's two jobs both sent ahead, their edits made by the other).
      for (const log of logs) expect(await readFile(log, 'utf8')).toMatch(/"msg":"slack: (delivered|outcome sent to the channel ahead of its edit)"/);
    } finally {
      await done();
    }
  });

  it('thread replies take a slot of the channel’s limit: six posts and six replies at two a second, no 429', async () => {
    const names = Array.from({ length: 6 }, (_, i) => `thread-${i}`);
    // Slack's one message a second per channel (burst 3) and notify's rate, both doubled: the same race in half the time.
    const { slack, publish, done } = await setUp(
      'hc-thread-slots',
      { rateLimits: { postMessagePerChannel: { burst: 3, perSecond: 2 } } },
      [{ channel: 'shared', releases: names.map((n) => `${namespace}/${n}`) }],
      { HELMCREW_NOTIFY_RATE_PER_SECOND: '2', HELMCREW_NOTIFY_RATE_BURST: '1' },
      1,
    );
    try {
      for (const name of names) await publish(name, 'UpgradeFailed', 'upgrade:a');
      const replies = () => slack.messages('shared').reduce((sum, m) => sum + slack.replies('shared', m.ts).length, 0);
      await waitUntil(
        () => slack.messages('shared').length === names.length && replies() === names.length,
        60_000,
        () => `${names.length} messages with a reply each (${slack.messages('shared').length}, ${replies()})`,
      );
      expect(tooMany(slack, 'chat.postMessage')).toEqual([]);
      // 12 messages at 2 a second (the posts first: they were asked for first): 5.5 s from first to last.
      const at = slack.okCalls('chat.postMessage').map((c) => c.at);
      expect(at).toHaveLength(2 * names.length);
      expect(Math.max(...at) - Math.min(...at)).toBeGreaterThanOrEqual(5_000);
    } finally {
      await done();
    }
  });

  it('an outcome whose edit must wait is said in the channel at once, as a thread reply also sent there; the edit follows in its turn', async () => {
    // notify's share of chat.update: one edit, then one every 10 s; an outcome waits at most 1 s for its edit.
    const names = ['tier-0', 'tier-1', 'tier-2'];
    const { slack, publish, done } = await setUp(
      'hc-outcome-first',
      {},
      names.map((name) => ({ channel: `c-${name}`, releases: [`${namespace}/${name}`] })),
      { HELMCREW_SLACK_UPDATE_PER_MINUTE: '6', HELMCREW_SLACK_UPDATE_BURST: '1', HELMCREW_SLACK_OUTCOME_WAIT_SECONDS: '1' },
      1,
    );
    const thread = (name: string) => slack.replies(`c-${name}`, slack.messages(`c-${name}`)[0]!.ts);
    try {
      for (const name of names) await publish(name, 'UpgradeStarted', 'upgrade:a');
      await waitUntil(
        () => names.every((n) => slack.messages(`c-${n}`).length === 1 && thread(n).length === 1),
        30_000,
        () => 'every release’s first message and its thread reply',
      );
      for (const name of names) await publish(name, 'UpgradeFailed', 'upgrade:a');
      const edited = () => names.filter((n) => /: Upgrade failed/.test(slack.messages(`c-${n}`)[0]!.text));
      await waitUntil(
        () => edited().length === names.length,
        60_000,
        () => `every message edited to Upgrade failed (${edited().join(', ')})`,
      );
      // One edit went at once; the other two outcomes were said in their channels, then edited 10 s apart.
      const broadcasts = names.flatMap((n) => thread(n).filter((r) => r.broadcast));
      expect(broadcasts).toHaveLength(2);
      for (const reply of broadcasts) expect(reply.text).toMatch(new RegExp(`^${namespace}/tier-\\d: Upgrade failed: `));
      const sent = (method: string, channelId: string, broadcast: boolean) =>
        slack
          .okCalls(method)
          .filter((c) => c.params.channel === channelId && (method === 'chat.update' || (c.params.reply_broadcast === 'true') === broadcast))
          .map((c) => c.at);
      for (const reply of broadcasts) {
        const [said] = sent('chat.postMessage', reply.channel, true);
        const [edit] = sent('chat.update', reply.channel, false);
        expect(said).toBeLessThan(edit!);
      }
      const edits = slack.okCalls('chat.update').map((c) => c.at);
      expect(Math.max(...edits) - Math.min(...edits)).toBeGreaterThanOrEqual(18_000);
      // Each thread: the start's detail and the outcome's, once (the broadcast stands for the outcome's reply).
      for (const name of names)
        expect(thread(name).map((r) => r.text.replace(/^.*?(Upgrading|Upgrade failed).*$/s, '$1'))).toEqual(['Upgrading', 'Upgrade failed']);
      expect(tooMany(slack, 'chat.update')).toEqual([]);
      expect(tooMany(slack, 'chat.postMessage')).toEqual([]);
    } finally {
      await done();
    }
  });

  it('the Resumed message carries the upgrade that follows; a second upgrade of that generation has its own', async () => {
    const { slack, publish, done } = await setUp('hc-resume', {}, [{ channel: 'resume', releases: [`${namespace}/resumed`] }], {}, 1);
    const text = () => slack.messages('resume').map((m) => m.text);
    try {
      await publish('resumed', 'Resumed', 'resume');
      await waitUntil(
        () => text().length === 1,
        30_000,
        () => 'the Resumed message',
      );
      await publish('resumed', 'UpgradeStarted', 'upgrade:a');
      const replies = () => slack.replies('resume', slack.messages('resume')[0]!.ts).length;
      // Its thread reply too: otherwise the outcome, arriving first, would rightly stand for both.
      await waitUntil(
        () => /Resumed · Upgrading/.test(text()[0] ?? '') && replies() === 2,
        30_000,
        () => `the Resumed message to show the upgrade (${text().join(' | ')})`,
      );
      await publish('resumed', 'UpgradeSucceeded', 'upgrade:a');
      await waitUntil(
        () => /Resumed · Upgraded/.test(text()[0] ?? '') && replies() === 3,
        30_000,
        () => `the upgrade's outcome (${text().join(' | ')})`,
      );
      const [message] = slack.messages('resume');
      expect(text()).toEqual([`${namespace}/resumed: Resumed · Upgraded`]);
      expect(JSON.stringify(message!.attachments)).toMatch(/Resumed \d\d:\d\d:\d\d → Upgrading \d\d:\d\d:\d\d → Upgraded/);
      expect(slack.replies('resume', message!.ts).map((r) => r.text.split(':')[0])).toEqual(['Resumed', 'Upgrading', 'Upgraded']);
      // A later retry of the upgrade is an operation of its own.
      await publish('resumed', 'UpgradeFailed', 'upgrade:b');
      await waitUntil(
        () => text().length === 2,
        30_000,
        () => `a second message (${text().join(' | ')})`,
      );
      expect(text()[1]).toBe(`${namespace}/resumed: Upgrade failed`);
    } finally {
      await done();
    }
  });
});
