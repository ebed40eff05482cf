// Redis commands per release in a burst: INFO commandstats (every client) read before and after the
// burst on the bench's own Redis. Commands run inside MULTI or a script count by their own name too
// (`multi`, `exec`, `evalsha` and what they ran), as Redis counts them.
import { Redis } from 'ioredis';
import { redisRate, redisSnapshot } from './redis-stats.js';
import type { SizeResult } from './burst-report.js';
import type { Table } from './result.js';

/** The reader's INFO calls (redisSnapshot sends four) are left out of the difference. */
const OWN_INFO_CALLS = 4;

/** Starts counting; `stop` gives command → calls over the interval. */
export async function countRedisCommands(redisUrl: string): Promise<{ stop: () => Promise<Record<string, number>> }> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  const before = await redisSnapshot(redis);
  return {
    async stop() {
      const after = await redisSnapshot(redis);
      redis.disconnect();
      return redisRate(before, after, 1, OWN_INFO_CALLS).byCommand;
    },
  };
}

/** Pure: `total; name n.nn, …` per release, largest first. */
export function formatPerRelease(calls: Record<string, number>, releases: number): string {
  const entries = Object.entries(calls).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const total = entries.reduce((sum, [, n]) => sum + n, 0);
  const rows = entries.map(([name, n]) => `${name} ${(n / releases).toFixed(2)}`);
  return `${(total / releases).toFixed(2)}: ${rows.join(', ')}`;
}

export function redisTable(results: SizeResult[]): Table {
  const rows: Table['rows'] = [];
  for (const r of results) for (const b of r.helmcrew.bursts) if (b.redisCalls) rows.push([r.n, b.what, formatPerRelease(b.redisCalls, r.n)]);
  return {
    title: 'Redis commands per release, helmcrew (INFO commandstats over the burst, every client; commands inside MULTI and scripts counted too)',
    columns: ['N', 'phase', 'total: by command'],
    rows,
  };
}
