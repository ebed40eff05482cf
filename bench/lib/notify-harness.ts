// The notify benchmarks' shared parts: a `helmcrew notify` child process serving one run's
// Teams, and a publishing schedule (N releases × operations at random moments of a period,
// published with the controller's own NotifyPublisher onto the real queue). Used by
// notify-latency.ts (webhook) and slack-latency.ts (Slack provider against the local fake Slack).
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ReleaseEvent } from '../../src/api/vocabulary.js';
import { connectRedis } from '../../src/core/redis.js';
import { REPO_ROOT } from '../../src/dev/paths.js';
import type { ReleaseNotification } from '../../src/notify/contract.js';
import { NotifyPublisher } from '../../src/notify/publish/publisher.js';
import { notificationFor, TEST_LABEL } from '../../test/support/notify-fixtures.js';
import { withTimeout, type Cleanup } from './cleanup.js';
import type { BenchEnv } from './environment.js';
import { log } from './say.js';

export interface NotifyChild {
  pid: number;
  logFile: string;
  stop(): Promise<void>;
}

/** `node bin/helmcrew.js notify` for one run (queue prefix and Team selector), started and ready. */
export async function startNotifyChild(bench: BenchEnv, cleanup: Cleanup, run: string, extraEnv: Record<string, string>): Promise<NotifyChild> {
  const logFile = join(bench.dir, `${run}.log`);
  const out = createWriteStream(logFile);
  const child = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'helmcrew.js'), 'notify'], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      KUBECONFIG: bench.env.kubeconfig,
      REDIS_URL: bench.env.redisUrl,
      HELMCREW_QUEUE_PREFIX: run,
      HELMCREW_TEAM_SELECTOR: `${TEST_LABEL}=${run}`,
      LOG_LEVEL: 'info',
      ...extraEnv,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr.pipe(out);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let undo = () => {};
  const stop = async () => {
    child.kill('SIGTERM');
    await Promise.race([exited, sleep(15_000).then(() => child.kill('SIGKILL'))]);
    undo();
  };
  undo = cleanup.add(`stop notify ${child.pid}`, stop);
  await withTimeout(
    new Promise<void>((resolve, reject) => {
      let buffer = '';
      child.stderr.on('data', (chunk: Buffer) => {
        buffer += chunk.toString('utf8');
        if (buffer.includes('"msg":"notify started"')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`notify exited with ${code}; see ${logFile}`)));
    }),
    60_000,
    'notify start',
  );
  return { pid: child.pid!, logFile, stop };
}

export interface ScheduleOptions {
  releases: number;
  changes: number;
  seconds: number;
}

export interface Published {
  all: ReleaseNotification[];
  /** Each operation's outcome (what a reader of the channel ends up seeing), by operation id. */
  finals: Map<string, ReleaseNotification>;
}

/**
 * Each release runs `changes` operations at random moments of the period: UpgradeStarted, then
 * 1–3 s later UpgradeSucceeded or (1 in 5) UpgradeFailed. `shape` may rewrite a notification
 * (a marker in its message) before it is published.
 */
export async function publishSchedule(
  bench: BenchEnv,
  run: string,
  opts: ScheduleOptions,
  releaseOf: (r: number) => { namespace: string; name: string },
  shape: (n: ReleaseNotification) => ReleaseNotification = (n) => n,
): Promise<Published> {
  const redis = connectRedis(bench.env.redisUrl);
  const publisher = new NotifyPublisher({ connection: redis, prefix: run, log });
  const schedule: Array<{ atMs: number; release: number; op: number; final: boolean }> = [];
  for (let r = 0; r < opts.releases; r++) {
    for (let op = 0; op < opts.changes; op++) {
      const start = (op + Math.random()) * ((opts.seconds * 1000) / opts.changes) * 0.9;
      schedule.push({ atMs: start, release: r, op, final: false }, { atMs: start + 1000 + Math.random() * 2000, release: r, op, final: true });
    }
  }
  schedule.sort((a, b) => a.atMs - b.atMs);
  const published: Published = { all: [], finals: new Map() };
  try {
    const began = Date.now();
    for (const step of schedule) {
      const wait = began + step.atMs - Date.now();
      if (wait > 0) await sleep(wait);
      const release = releaseOf(step.release);
      const event: ReleaseEvent = step.final ? (Math.random() < 0.2 ? 'UpgradeFailed' : 'UpgradeSucceeded') : 'UpgradeStarted';
      const n = shape(notificationFor(release, event, `${release.namespace}/${release.name}:op${step.op}`));
      if (step.final) published.finals.set(n.operationId, n);
      await publisher.publish(n);
      published.all.push(n);
    }
  } finally {
    await publisher.close();
    redis.disconnect();
  }
  return published;
}
