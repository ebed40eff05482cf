import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { connectRedis } from '../../src/core/redis.js';
import { NotifyPublisher } from '../../src/notify/publish/publisher.js';
import { UnroutedMarks } from '../../src/notify/delivery/unrouted.js';
import { NOTIFY_QUEUE, type NotifyJob } from '../../src/notify/queues.js';
import { eventually } from '../support/eventually.js';
import { testEnv, uniqueName } from '../support/fixtures.js';
import { memoryLogger, notificationFor } from '../support/notify-fixtures.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

const release: HelmRelease = {
  apiVersion: 'helmcrew.dev/v1alpha1',
  kind: 'HelmRelease',
  metadata: { name: 'unicorn', namespace: 'web', uid: 'uid-1', generation: 2, labels: { tier: 'web' } },
  spec: { chart: { repository: 'https://charts.example.test', name: 'unicorn', version: '2.0.0' } },
};

/** Issue 6: the controller's publisher puts each happening on the durable queue, and never holds a reconcile up when Redis does not answer. */
describe('publishing notifications', () => {
  const { env } = testEnv();
  const prefix = uniqueName('hc-pub');
  const redisPort = Number(new URL(env.redisUrl).port);
  let proxy: TcpProxy;
  const direct = connectRedis(env.redisUrl);
  const queue = new Queue<NotifyJob>(NOTIFY_QUEUE, { connection: direct, prefix });

  beforeAll(async () => {
    proxy = await startTcpProxy(redisPort);
  });
  afterAll(async () => {
    await queue.close();
    direct.disconnect();
    await proxy.close();
  });

  it('a happening becomes one job on the notify queue, kept until routed', async () => {
    const { log } = memoryLogger('controller');
    const publisher = new NotifyPublisher({ connection: direct, prefix, log });
    await publisher.record(release, 'UpgradeFailed', 'Helm upgrade to unicorn@2.0.0 failed: boom', {
      action: 'upgrade',
      attempt: 'a1',
      fromVersion: '1.0.0',
      toVersion: '2.0.0',
      errorExcerpt: 'boom',
    });
    const jobs = await queue.getJobs(['waiting']);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.id).toBe(jobs[0]!.data.id);
    expect(jobs[0]!.data).toMatchObject({
      event: 'UpgradeFailed',
      severity: 'error',
      operationId: 'uid-1:2:upgrade:a1',
      fromVersion: '1.0.0',
      toVersion: '2.0.0',
      release: { namespace: 'web', chart: 'unicorn', labels: { tier: 'web' } },
    });
    expect(jobs[0]!.opts.removeOnFail).toBe(false);
    await publisher.close();
  });

  it('Redis not answering: record() returns within its bounded wait, logs it, and refuses beyond the in-flight cap', async () => {
    const { log, lines } = memoryLogger('controller');
    const viaProxy = connectRedis(`redis://127.0.0.1:${proxy.port}`);
    await viaProxy.ping();
    const publisher = new NotifyPublisher({ connection: viaProxy, prefix: uniqueName('hc-pub-stalled'), log, maxWaitMs: 200, slowWarnMs: 600, maxInFlight: 2 });
    proxy.stall();
    try {
      for (let i = 0; i < 3; i++) {
        const started = Date.now();
        await publisher.record(release, 'UpgradeSucceeded', `upgraded ${i}`);
        expect(Date.now() - started).toBeLessThan(1500);
      }
      // The two adds in flight are warned of once they have waited slowWarnMs, not when the reconcile stopped waiting.
      expect(lines.filter((l) => l.includes('Redis is slow to accept a notification'))).toHaveLength(0);
      await eventually(() => expect(lines.filter((l) => l.includes('Redis is slow to accept a notification'))).toHaveLength(2), { timeoutMs: 5_000 });
      expect(lines.some((l) => l.includes('notification not published: Redis has not answered the earlier ones'))).toBe(true);
    } finally {
      viaProxy.disconnect();
    }
  });

  it('Redis slow but answering: the reconcile goes on after its wait, and an add answered before slowWarnMs is a debug line, not a warning', async () => {
    const { log, lines } = memoryLogger('controller');
    const slow = await startTcpProxy(redisPort);
    const viaProxy = connectRedis(`redis://127.0.0.1:${slow.port}`);
    try {
      await viaProxy.ping();
      const prefix = uniqueName('hc-pub-slow');
      const publisher = new NotifyPublisher({ connection: viaProxy, prefix, log, maxWaitMs: 200, slowWarnMs: 3_000 });
      slow.delay(700);
      const started = Date.now();
      await publisher.record(release, 'UpgradeSucceeded', 'upgraded while Redis was slow');
      expect(Date.now() - started).toBeLessThan(600);
      await eventually(() => expect(lines.some((l) => l.includes('Redis accepted the notification after the reconcile went on'))).toBe(true), {
        timeoutMs: 5_000,
      });
      expect(lines.filter((l) => l.includes('"level":40'))).toEqual([]);
      slow.delay(0);
      const published = new Queue<NotifyJob>(NOTIFY_QUEUE, { connection: direct, prefix });
      expect((await published.getJobCounts('waiting')).waiting).toBe(1);
      await published.close();
      await publisher.close();
    } finally {
      viaProxy.disconnect();
      await slow.close();
    }
  });

  it('unrouted marks: a later notification waits while an earlier one of its release is unrouted; a stale mark holds nobody', async () => {
    const marks = new UnroutedMarks(direct, uniqueName('hc-marks'), 30_000);
    const release = { namespace: 'web', name: 'unicorn' };
    const first = notificationFor(release, 'UpgradeStarted', 'op0');
    const second = notificationFor(release, 'UpgradeSucceeded', 'op0');
    const other = notificationFor({ namespace: 'web', name: 'narwhal' }, 'UpgradeStarted', 'op9');
    for (const n of [first, second, other]) await marks.mark(n);
    expect(await marks.earlierUnrouted(second)).toBe(true);
    expect(await marks.earlierUnrouted(first)).toBe(false);
    expect(await marks.earlierUnrouted(other)).toBe(false);
    await marks.unmark(first);
    expect(await marks.earlierUnrouted(second)).toBe(false);
    const late = notificationFor(release, 'UpgradeFailed', 'op1');
    await marks.mark(late);
    // Seen a minute later, the earlier mark (its publisher gone before adding the job) no longer holds.
    expect(await marks.earlierUnrouted(late, Date.parse(second.at) + 20_000)).toBe(true);
    expect(await marks.earlierUnrouted(late, Date.parse(second.at) + 60_000)).toBe(false);
  });
});
