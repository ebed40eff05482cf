import { describe, expect, it } from 'vitest';
import { infoField, parseCommandStats, redisRate, type RedisSnapshot } from '../../bench/lib/redis-stats.js';

const snapshot = (calls: Record<string, number>): RedisSnapshot => ({
  calls: new Map(Object.entries(calls)),
  usedMemoryBytes: 0,
  keys: 0,
  connectedClients: 0,
});

describe('bench: Redis commandstats', () => {
  it('reads calls per command from INFO commandstats, subcommands included', () => {
    const info = [
      '# Commandstats',
      'cmdstat_evalsha:calls=120,usec=3000,usec_per_call=25.00,rejected_calls=0,failed_calls=1',
      'cmdstat_client|setname:calls=4,usec=4,usec_per_call=1.00,rejected_calls=0,failed_calls=0',
      'cmdstat_info:calls=7,usec=100,usec_per_call=14.29,rejected_calls=0,failed_calls=0',
      '',
    ].join('\r\n');
    expect(parseCommandStats(info)).toEqual(
      new Map([
        ['evalsha', 120],
        ['client|setname', 4],
        ['info', 7],
      ]),
    );
    expect(infoField('# Memory\r\nused_memory:1048576\r\nused_memory_human:1.00M\r\n', 'used_memory')).toBe(1048576);
    expect(infoField('', 'used_memory')).toBeNaN();
  });

  it('per second between two snapshots, new commands counted, the bench’s own INFO calls left out', () => {
    const rate = redisRate(snapshot({ evalsha: 100, info: 10 }), snapshot({ evalsha: 160, info: 15, bzpopmin: 20 }), 20, 3);
    expect(rate.byCommand).toEqual({ evalsha: 60, info: 2, bzpopmin: 20 });
    expect(rate.opsPerSecond).toBe(4.1);
    expect(rate.top).toEqual(['evalsha 3.00', 'bzpopmin 1.00', 'info 0.10']);
  });
});
