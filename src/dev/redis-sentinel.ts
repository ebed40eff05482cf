// A Sentinel set for failover tests: one primary and one replica (the distribution's redis-server,
// through startRedis) and three sentinels (the distribution's redis-sentinel) watching them, all on
// free loopback ports inside one directory. REDIS_URL for it: `url`.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { access, constants } from 'node:fs/promises';
import type { Logger } from '../core/log.js';
import { freePort } from './free-port.js';
import { startDetached, stopProcess, type StartedProcess } from './processes.js';
import { askRedisNode as ask, startRedis } from './redis.js';
import { waitFor } from './wait.js';

export const REDIS_SENTINEL = '/usr/bin/redis-sentinel';

export interface SentinelSetOptions {
  /** Where the nodes keep their files, logs and pids (a state dir of its own). */
  dir: string;
  log: Logger;
  masterName?: string;
  /** How long a primary must be silent before the sentinels call it down (Sentinel's down-after-milliseconds). */
  downAfterMs?: number;
}

export interface SentinelSet {
  masterName: string;
  /** `redis+sentinel://127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3/<masterName>` */
  url: string;
  primary: { port: number; proc: StartedProcess };
  replica: { port: number; proc: StartedProcess };
  sentinels: Array<{ port: number; proc: StartedProcess }>;
  /** The primary's port as the sentinels now name it (asked of the first one that answers). */
  masterPort(): Promise<number | undefined>;
  stop(): Promise<void>;
}

export async function startSentinelSet(opts: SentinelSetOptions): Promise<SentinelSet> {
  try {
    await access(REDIS_SENTINEL, constants.X_OK);
  } catch {
    throw new Error(`${REDIS_SENTINEL} not found: install it with \`apt-get install redis-sentinel\` (scripts/setup.sh does)`);
  }
  const masterName = opts.masterName ?? 'helmcrew';
  const started: StartedProcess[] = [];
  const stop = async () => {
    await Promise.all(started.map((proc) => stopProcess(proc, 2000)));
  };
  try {
    const node = (name: string, extraArgs: string[] = []) =>
      startRedis({ stateDir: opts.dir, log: opts.log, name, dir: join(opts.dir, name), extraArgs, onStarted: (proc) => started.push(proc) });
    const primary = await node('redis-primary');
    const replica = await node('redis-replica', ['--replicaof', '127.0.0.1', String(primary.port)]);
    await waitFor(async () => (/master_link_status:up/.test(String(await ask(replica.port, ['INFO', 'replication']))) ? true : 'replica not in sync yet'), {
      label: 'redis replica in sync',
      log: opts.log,
      timeoutMs: 30_000,
      watch: [primary.proc, replica.proc],
    });
    const sentinels: SentinelSet['sentinels'] = [];
    for (const name of ['sentinel-1', 'sentinel-2', 'sentinel-3']) {
      const port = await freePort();
      const dir = join(opts.dir, name);
      await mkdir(dir, { recursive: true });
      // Sentinel rewrites its own config file (what it learns about replicas and peers): one each.
      const config = join(dir, 'sentinel.conf');
      await writeFile(
        config,
        [
          'bind 127.0.0.1',
          `port ${port}`,
          'daemonize no',
          'logfile ""',
          `dir ${dir}`,
          `sentinel monitor ${masterName} 127.0.0.1 ${primary.port} 2`,
          `sentinel down-after-milliseconds ${masterName} ${opts.downAfterMs ?? 2000}`,
          `sentinel failover-timeout ${masterName} 10000`,
          `sentinel parallel-syncs ${masterName} 1`,
          '',
        ].join('\n'),
      );
      const proc = await startDetached({ name, command: REDIS_SENTINEL, args: [config], stateDir: opts.dir, cwd: dir });
      started.push(proc);
      sentinels.push({ port, proc });
    }
    // Ready when every sentinel has found the replica and the two other sentinels (hello messages, every 2 s).
    for (const sentinel of sentinels) {
      await waitFor(
        async () => {
          const replicas = (await ask(sentinel.port, ['SENTINEL', 'REPLICAS', masterName])) as unknown[];
          const peers = (await ask(sentinel.port, ['SENTINEL', 'SENTINELS', masterName])) as unknown[];
          return (replicas.length === 1 && peers.length === 2) || `knows ${replicas.length} replica(s) and ${peers.length} other sentinel(s)`;
        },
        { label: `${sentinel.proc.name} ready`, log: opts.log, timeoutMs: 30_000, watch: [sentinel.proc] },
      );
    }
    const url = `redis+sentinel://${sentinels.map((s) => `127.0.0.1:${s.port}`).join(',')}/${masterName}`;
    return {
      masterName,
      url,
      primary,
      replica,
      sentinels,
      masterPort: async () => {
        for (const sentinel of sentinels) {
          const answer = await ask(sentinel.port, ['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', masterName]).catch(() => undefined);
          if (Array.isArray(answer) && answer[1] !== undefined) return Number(answer[1]);
        }
        return undefined;
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
