// A Redis Cluster for failover tests: three primaries with one replica each (the distribution's
// redis-server with --cluster-enabled, through startRedis), joined by `redis-cli --cluster create`,
// all on free loopback ports inside one directory. REDIS_URL for it: `url`.
import { access, constants } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import type { Logger } from '../core/log.js';
import { stopProcess, type StartedProcess } from './processes.js';
import { askRedisNode as ask, startRedis } from './redis.js';
import { waitFor } from './wait.js';

export const REDIS_CLI = '/usr/bin/redis-cli';

export interface RedisClusterOptions {
  /** Where the nodes keep their files (each its nodes.conf), logs and pids (a state dir of its own). */
  dir: string;
  log: Logger;
  /** How long a primary must be silent before the others call it failed (cluster-node-timeout); a replica then takes over. */
  nodeTimeoutMs?: number;
  /** Primaries (each with one replica); Redis Cluster needs at least three. */
  primaries?: number;
}

export interface ClusterNode {
  port: number;
  proc: StartedProcess;
}

export interface RedisClusterSet {
  /** `redis+cluster://127.0.0.1:p1,…` naming every node (any one would do as a seed). */
  url: string;
  nodes: ClusterNode[];
  /** The node that now serves a key's slot (as a live node says), and the replica that follows it. */
  ownerOf(key: string): Promise<{ primary: ClusterNode; replica?: ClusterNode }>;
  /** Whether a live node reports the cluster ok (every slot served). */
  healthy(): Promise<boolean>;
  stop(): Promise<void>;
}

export async function startRedisCluster(opts: RedisClusterOptions): Promise<RedisClusterSet> {
  try {
    await access(REDIS_CLI, constants.X_OK);
  } catch {
    throw new Error(`${REDIS_CLI} not found: install it with \`apt-get install redis-tools\` (it comes with redis-server)`);
  }
  const primaries = opts.primaries ?? 3;
  const started: StartedProcess[] = [];
  const stop = async () => {
    await Promise.all(started.map((proc) => stopProcess(proc, 2000)));
  };
  try {
    const nodes = await Promise.all(
      Array.from({ length: primaries * 2 }, async (_, i) => {
        const name = `redis-cluster-${i + 1}`;
        const dir = join(opts.dir, name);
        const node = await startRedis({
          stateDir: opts.dir,
          log: opts.log,
          name,
          dir,
          onStarted: (proc) => started.push(proc),
          extraArgs: [
            '--cluster-enabled',
            'yes',
            '--cluster-config-file',
            join(dir, 'nodes.conf'),
            '--cluster-node-timeout',
            String(opts.nodeTimeoutMs ?? 2000),
          ],
        });
        return { port: node.port, proc: node.proc };
      }),
    );
    const addresses = nodes.map((n) => `127.0.0.1:${n.port}`);
    // The first `primaries` nodes get the slots, the others follow them (redis-cli picks which).
    opts.log.info({ nodes: addresses }, 'creating redis cluster');
    await execa(REDIS_CLI, ['--cluster', 'create', ...addresses, '--cluster-replicas', '1', '--cluster-yes'], { timeout: 60_000 });
    const set = clusterHandle(nodes, stop);
    await waitFor(
      async () => {
        const states = await Promise.all(nodes.map((n) => ask(n.port, ['CLUSTER', 'INFO']).catch(() => '')));
        const notOk = states.filter((s) => !/cluster_state:ok/.test(String(s))).length;
        if (notOk > 0) return `${notOk} node(s) do not report cluster_state:ok yet`;
        const links = await Promise.all(nodes.map((n) => ask(n.port, ['INFO', 'replication']).catch(() => '')));
        const inSync = links.filter((l) => /role:slave/.test(String(l)) && /master_link_status:up/.test(String(l))).length;
        return inSync === primaries || `${inSync} of ${primaries} replicas in sync`;
      },
      { label: 'redis cluster ready', log: opts.log, timeoutMs: 60_000, watch: nodes.map((n) => n.proc) },
    );
    return set;
  } catch (error) {
    await stop();
    throw error;
  }
}

function clusterHandle(nodes: ClusterNode[], stop: () => Promise<void>): RedisClusterSet {
  const byPort = new Map(nodes.map((n) => [n.port, n]));
  /** One live node's answer: killed nodes are skipped. */
  const askAny = async (command: string[]): Promise<unknown> => {
    let lastError: unknown;
    for (const node of nodes) {
      try {
        return await ask(node.port, command);
      } catch (error) {
        lastError = error;
      }
    }
    throw lastError instanceof Error ? lastError : new Error('no cluster node answers');
  };
  return {
    url: `redis+cluster://${nodes.map((n) => `127.0.0.1:${n.port}`).join(',')}`,
    nodes,
    healthy: async () => /cluster_state:ok/.test(String(await askAny(['CLUSTER', 'INFO']).catch(() => ''))),
    ownerOf: async (key) => {
      const slot = Number(await askAny(['CLUSTER', 'KEYSLOT', key]));
      const table = parseClusterNodes(String(await askAny(['CLUSTER', 'NODES'])));
      const owner = table.find((n) => n.master && !n.failed && n.slots.some(([from, to]) => slot >= from && slot <= to));
      if (!owner) throw new Error(`no live primary serves slot ${slot} yet`);
      const primary = byPort.get(owner.port);
      if (!primary) throw new Error(`slot ${slot} is served by an unknown node on port ${owner.port}`);
      const follower = table.find((n) => !n.master && !n.failed && n.masterId === owner.id);
      const replica = follower ? byPort.get(follower.port) : undefined;
      return replica ? { primary, replica } : { primary };
    },
    stop,
  };
}

interface NodeLine {
  id: string;
  port: number;
  master: boolean;
  failed: boolean;
  masterId: string;
  slots: Array<[number, number]>;
}

/** `CLUSTER NODES`: `<id> <ip:port@cport> <flags> <master-id|-> <ping> <pong> <epoch> <link> <slot ranges…>`. */
export function parseClusterNodes(text: string): NodeLine[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [id = '', address = '', flags = '', masterId = '', , , , , ...ranges] = line.trim().split(' ');
      const flagList = flags.split(',');
      return {
        id,
        port: Number(/:(\d+)@/.exec(address)?.[1] ?? 0),
        master: flagList.includes('master'),
        failed: flagList.includes('fail') || flagList.includes('fail?'),
        masterId,
        slots: ranges
          .filter((r) => /^\d+(-\d+)?$/.test(r))
          .map((r) => {
            const [from, to] = r.split('-').map(Number);
            return [from!, to ?? from!] as [number, number];
          }),
      };
    });
}
