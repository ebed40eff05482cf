// Redis for the job queue: the distribution's redis-server, throwaway (no RDB, no AOF), on a free
// loopback port, with its own working dir inside the state dir.
import { access, constants, mkdir } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { Redis } from 'ioredis';
import type { Logger } from '../core/log.js';
import { freePort } from './free-port.js';
import { statePaths } from './paths.js';
import { startDetached, type StartedProcess } from './processes.js';
import { waitFor } from './wait.js';

export const REDIS_SERVER = '/usr/bin/redis-server';

export interface RedisOptions {
  stateDir: string;
  log: Logger;
  onStarted: (proc: StartedProcess) => void;
  /** Override for machines that have redis-server elsewhere. */
  binary?: string;
  /** Process name (logs/<name>.log, pids/<name>.pid) and working dir; default "redis" in the state dir's redis dir. */
  name?: string;
  dir?: string;
  /** More redis-server arguments (a replica's --replicaof). */
  extraArgs?: string[];
}

/** Sends PING over a raw socket (no client library needed) and resolves true on +PONG. */
export function pingRedis(port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let reply = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString('utf8');
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
  });
}

export async function startRedis(opts: RedisOptions): Promise<{ url: string; port: number; proc: StartedProcess }> {
  const binary = opts.binary ?? REDIS_SERVER;
  try {
    await access(binary, constants.X_OK);
  } catch {
    throw new Error(`${binary} not found: install it with \`apt-get install redis-server\``);
  }
  const redisDir = opts.dir ?? statePaths(opts.stateDir).redisDir;
  const name = opts.name ?? 'redis';
  await mkdir(redisDir, { recursive: true });
  const port = await freePort();
  opts.log.info({ port, name }, 'starting redis');
  const proc = await startDetached({
    name,
    command: binary,
    stateDir: opts.stateDir,
    cwd: redisDir,
    args: [
      '--bind',
      '127.0.0.1',
      '--port',
      String(port),
      '--dir',
      redisDir,
      '--save',
      '', // no RDB snapshots
      '--appendonly',
      'no',
      '--daemonize',
      'no', // we track its pid; it must not fork away
      '--logfile',
      '', // stdout, which goes to logs/<name>.log
      ...(opts.extraArgs ?? []),
    ],
  });
  opts.onStarted(proc);
  await waitFor(async () => (await pingRedis(port)) || 'no PONG yet', {
    label: `${name} PING`,
    log: opts.log,
    timeoutMs: 15_000,
    watch: [proc],
  });
  return { url: `redis://127.0.0.1:${port}`, port, proc };
}

/** One command on a fresh plain connection to one node (of a cluster or a Sentinel set) that gives up at once when the node is down. */
export async function askRedisNode(port: number, [command, ...args]: string[]): Promise<unknown> {
  const client = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 2000 });
  client.on('error', () => undefined); // the command's own rejection says it
  try {
    await client.connect();
    return await client.call(command!, ...args);
  } finally {
    client.disconnect();
  }
}
