import { Redis } from 'ioredis';
import { expect } from 'vitest';
import { CheckLedger } from '../../src/controller/queue/check-ledger.js';
import type { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import type { HelmShim } from './helm-shim.js';
import { eventually } from './eventually.js';

/**
 * Watches a controller's check ledger (Redis, beside its queue) until every key has been seen
 * checked at `times` distinct moments, or the time is up. A check that finds nothing changed
 * writes nothing to the API server, so this is where periodic checks are visible. The moment
 * already recorded counts as one: callers assert on the sizes they get back.
 */
export async function waitForChecks(redisUrl: string, prefix: string, keys: string[], times: number, timeoutMs: number): Promise<Map<string, Set<number>>> {
  const seen = new Map(keys.map((k) => [k, new Set<number>()]));
  await watchLedger(redisUrl, prefix, async (ledger) => {
    await eventually(
      async () => {
        const all = await ledger.all();
        for (const key of keys) {
          const at = all.get(key);
          if (at !== undefined) seen.get(key)!.add(at);
        }
        expect(keys.filter((k) => seen.get(k)!.size < times)).toEqual([]);
      },
      { timeoutMs, intervalMs: 200 },
    ).catch(() => undefined);
  });
  return seen;
}

/**
 * Waits until every key has had a whole check that began after this call. The ledger records a
 * check when it ends, and one release's checks never overlap (the queue keeps a job added while
 * one is active until it is done), so the second check to end after the call began after it. A
 * baseline taken then is past every pass already under way — what a fixed sleep "to let things
 * settle" only hoped for. Returns when each key's latest check ended.
 */
export async function waitForCheckBegunNow(redisUrl: string, prefix: string, keys: string[], timeoutMs = 30_000): Promise<Map<string, number>> {
  const since = Date.now();
  const ended = new Map(keys.map((k) => [k, new Set<number>()]));
  await watchLedger(redisUrl, prefix, (ledger) =>
    eventually(
      async () => {
        const all = await ledger.all();
        for (const key of keys) {
          const at = all.get(key);
          if (at !== undefined && at >= since) ended.get(key)!.add(at);
        }
        const short = keys.filter((k) => ended.get(k)!.size < 2);
        expect(short, 'releases without a check begun after the wait started').toEqual([]);
      },
      { timeoutMs, intervalMs: 100 },
    ),
  );
  return new Map(keys.map((k) => [k, Math.max(...ended.get(k)!)]));
}

async function watchLedger<T>(redisUrl: string, prefix: string, use: (ledger: CheckLedger) => Promise<T>): Promise<T> {
  const redis = new Redis(redisUrl);
  try {
    return await use(new CheckLedger(redis, prefix));
  } finally {
    redis.disconnect();
  }
}

/**
 * Releases at rest stay quiet: after a whole check of each begun now (the baseline), `times` more
 * checks of each start no helm process and write none of the HelmReleases.
 */
export async function expectQuietAcrossChecks(opts: {
  redisUrl: string;
  prefix: string;
  helm: HelmShim;
  api: HelmReleaseApi;
  namespace: string;
  names: string[];
  times: number;
  timeoutMs: number;
}): Promise<void> {
  const { namespace, names } = opts;
  const keys = names.map((n) => `${namespace}/${n}`);
  await waitForCheckBegunNow(opts.redisUrl, opts.prefix, keys);
  const helmRuns = (await opts.helm.invocations()).length;
  const versions = async () =>
    new Map((await opts.api.list(namespace)).items.filter((r) => names.includes(r.metadata.name)).map((r) => [r.metadata.name, r.metadata.resourceVersion]));
  const before = await versions();
  const checks = await waitForChecks(opts.redisUrl, opts.prefix, keys, opts.times, opts.timeoutMs);
  for (const [key, seen] of checks) expect({ key, checks: seen.size >= opts.times }).toEqual({ key, checks: true });
  expect((await opts.helm.invocations()).slice(helmRuns)).toEqual([]);
  expect(await versions()).toEqual(before);
}
