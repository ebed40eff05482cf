import { once } from 'node:events';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { CheckLedger } from '../../src/controller/queue/check-ledger.js';
import { clusterKey } from '../../src/core/fleet/cluster-keys.js';
import { createLogger } from '../../src/core/log.js';
import { RequesterStampingSink } from '../../src/core/events/requester-sink.js';
import { RequesterLedger, requestRecordKey } from '../../src/core/requests/requester-ledger.js';
import { UnroutedMarks } from '../../src/notify/delivery/unrouted.js';
import { eventually } from '../support/eventually.js';
import { testEnv, uniqueName } from '../support/fixtures.js';
import { notificationFor } from '../support/notify-fixtures.js';

/**
 * A MONITOR connection, once monitoring. ioredis marks itself monitoring a microtask after MONITOR's
 * OK, so lines of other clients' commands that arrive in the same read find no command waiting and
 * are reported as "Command queue state error" (seen in CI with a busy Redis). They precede every
 * command of the test, so that error is let pass; any other fails the start.
 */
async function monitorRedis(url: string): Promise<Redis> {
  const monitor = new Redis(url, { monitor: true });
  const failed = new Promise<never>((_resolve, reject) =>
    monitor.on('error', (error: Error) => {
      if (!error.message.startsWith('Command queue state error')) reject(error);
    }),
  );
  // An error after the start (the connection closed at the end) is not this start's to report.
  failed.catch(() => undefined);
  await Promise.race([once(monitor, 'monitoring'), failed]);
  return monitor;
}

/** Issue 50: what a release's bookkeeping costs Redis, seen by Redis itself (MONITOR, filtered to this test's keys). */
describe("a release's Redis bookkeeping", () => {
  const { env } = testEnv();
  const redis = new Redis(env.redisUrl);
  const monitors: Redis[] = [];
  afterAll(() => {
    for (const m of [redis, ...monitors]) m.disconnect();
  });

  /** Every command Redis runs that names `prefix`, as `command key`. */
  async function commandsOn(prefix: string): Promise<string[]> {
    const seen: string[] = [];
    const monitor = await monitorRedis(env.redisUrl);
    monitors.push(monitor);
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (args.some((a) => a.includes(prefix))) seen.push(`${args[0]!.toLowerCase()} ${args[1]}`);
    });
    return seen;
  }

  it('the check ledger sends a batch of checks as one ZADD, the releases gone as one ZREM, and reads its own unsent ones', async () => {
    const prefix = uniqueName('hc-ledger');
    const key = clusterKey(prefix, 'checked');
    const seen = await commandsOn(prefix);
    await redis.zadd(key, 1, 'apps/gone');
    const errors: Error[] = [];
    const ledger = new CheckLedger(redis, prefix, (e) => errors.push(e), 300);
    for (let i = 0; i < 5; i++) ledger.checked(`apps/r${i}`, 100 + i);
    ledger.forget('apps/gone');
    ledger.checked('apps/r0', 200);
    expect(await redis.zrange(key, 0, -1)).toEqual(['apps/gone']);
    expect(await ledger.all()).toEqual(new Map([...[1, 2, 3, 4].map((i): [string, number] => [`apps/r${i}`, 100 + i]), ['apps/r0', 200]]));
    await eventually(async () => expect(await redis.zcard(key)).toBe(5), { timeoutMs: 5000, intervalMs: 50 });
    expect(await new CheckLedger(redis, prefix).all()).toEqual(await ledger.all());
    expect(seen.filter((c) => /^(zadd|zrem) /.test(c))).toEqual([`zadd ${key}`, `zadd ${key}`, `zrem ${key}`]);
    expect(errors).toEqual([]);
  });

  it("the ledger's mark tells the resync whether Redis lost the ledger", async () => {
    const prefix = uniqueName('hc-ledger');
    const ledger = new CheckLedger(redis, prefix, () => undefined, 10);
    ledger.checked('apps/a', 1);
    expect((await ledger.read()).intact).toBe(false);
    ledger.markIntact(2);
    await ledger.flush();
    expect(await ledger.read()).toEqual({ checks: new Map([['apps/a', 1]]), intact: true });
    await redis.del(clusterKey(prefix, 'checked'));
    expect(await ledger.read()).toEqual({ checks: new Map(), intact: false });
  });

  it('a check that cannot be sent is reported, not thrown', async () => {
    const closed = new Redis(env.redisUrl, { maxRetriesPerRequest: 0, lazyConnect: true });
    closed.disconnect();
    const errors: Error[] = [];
    const ledger = new CheckLedger(closed, uniqueName('hc-ledger'), (e) => errors.push(e), 10);
    ledger.checked('apps/a', 1);
    await ledger.flush();
    expect(errors.map((e) => e.message)).toEqual([expect.stringMatching(/closed/i)]);
  });

  it('who asked: one GET for a run nobody asked for; a requester recorded before the run names its start and its end', async () => {
    const prefix = uniqueName('hc-asked');
    const seen = await commandsOn(prefix);
    const ledger = new RequesterLedger(redis, prefix);
    const stamped: unknown[] = [];
    const next = { record: async (_r: HelmRelease, event: string, _m: string, d?: { requester?: unknown }) => void stamped.push([event, d?.requester]) };
    const sink = new RequesterStampingSink(ledger, next, createLogger('test', 'silent'));
    const release = (generation: number) => ({ metadata: { name: 'u', namespace: 'web', uid: 'uid-1', generation } }) as HelmRelease;
    await sink.record(release(1), 'InstallStarted', 'm');
    await sink.record(release(1), 'InstallSucceeded', 'm');
    await ledger.record('uid-1', { generation: 2 }, { requester: { id: 'web:ana', name: 'ana' }, verb: 'upgrade', at: 't' });
    await sink.record(release(2), 'UpgradeStarted', 'm');
    await sink.record(release(2), 'UpgradeSucceeded', 'm');
    await eventually(() =>
      expect(seen.filter((c) => c.startsWith('get '))).toEqual([1, 2].map((g) => `get ${requestRecordKey(prefix, 'uid-1', { generation: g })}`)),
    );
    expect(stamped).toEqual([
      ['InstallStarted', undefined],
      ['InstallSucceeded', undefined],
      ['UpgradeStarted', { id: 'web:ana', name: 'ana' }],
      ['UpgradeSucceeded', { id: 'web:ana', name: 'ana' }],
    ]);
  });

  it('an unrouted mark is a ZADD and its expiry, with no transaction around them', async () => {
    const prefix = uniqueName('hc-marks');
    const seen: string[] = [];
    const monitor = await monitorRedis(env.redisUrl);
    monitors.push(monitor);
    let inMulti = false;
    monitor.on('monitor', (_time: string, args: string[]) => {
      const command = args[0]!.toLowerCase();
      if (command === 'multi') inMulti = true;
      if (args.some((a) => a.includes(prefix))) seen.push(`${inMulti ? 'in multi: ' : ''}${command}`);
      if (command === 'exec') inMulti = false;
    });
    const n = notificationFor({ namespace: 'web', name: 'unicorn' }, 'UpgradeStarted', 'op0');
    await new UnroutedMarks(redis, prefix).mark(n);
    const key = clusterKey(prefix, 'notifyUnrouted', 'web/unicorn');
    await eventually(() => expect(seen).toEqual(['zadd', 'pexpire']), { timeoutMs: 5000 });
    expect(await redis.zscore(key, n.id)).not.toBeNull();
    expect(await redis.pttl(key)).toBeGreaterThan(23 * 3600_000);
  });
});
