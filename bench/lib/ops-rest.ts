// burst --ops: the steady state again with what a production deployment turns on (issue 20): a
// controller that serves /metrics, scraped every 15 s as Prometheus would, and holds the leader
// Lease (renewed every HELMCREW_LEASE_RETRY_MS). Same releases, same queue prefix (so the same check
// ledger), a fresh controller child; measured once its start-up passes are done.
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../src/dev/free-port.js';
import type { Cleanup } from './cleanup.js';
import { spawnController, type ControllerChild } from './controller-child.js';
import { summarizeLog } from './controller-log.js';
import type { CountingHelm } from './counting-helm.js';
import type { BenchEnv } from './environment.js';
import { helmcrewRest, type Rest } from './burst-phases.js';
import { say } from './say.js';

export const SCRAPE_EVERY_MS = 15_000;

export interface OpsRestOptions {
  n: number;
  namespace: string;
  prefix: string;
  concurrency: number;
  dir: string;
  entry: string[];
  helm: CountingHelm;
  extraEnv: Record<string, string>;
  restSeconds: number;
  startTimeoutMs: number;
}

export async function opsRest(be: BenchEnv, o: OpsRestOptions, cleanup: Cleanup): Promise<Rest & { scrapes: number }> {
  const port = await freePort();
  const ctl: ControllerChild = await spawnController({
    env: be.env,
    entry: o.entry,
    helmBin: o.helm.bin,
    namespace: o.namespace,
    prefix: o.prefix,
    concurrency: o.concurrency,
    workDir: join(o.dir, 'work-ops'),
    logFile: join(o.dir, 'controller-ops.log'),
    extraEnv: { ...o.extraEnv, HEALTH_PORT: String(port), HELMCREW_LEADER_ELECTION: 'true' },
  });
  const forget = cleanup.add(`stop controller ${ctl.pid}`, () => ctl.stop());
  try {
    // Leading, and the start-up pass over every release (each is "added" to a fresh informer) done.
    const deadline = Date.now() + o.startTimeoutMs;
    for (;;) {
      const metrics = await fetch(`http://127.0.0.1:${port}/metrics`).then(
        (r) => r.text(),
        () => '',
      );
      const passes = Object.values((await summarizeLog(ctl.logFile)).reconciled).reduce((a, b) => a + b, 0);
      if (/^helmcrew_leader 1$/m.test(metrics) && passes >= o.n) break;
      if (Date.now() > deadline) throw new Error(`the --ops controller did not lead and pass over ${o.n} releases in time (${passes} passes)`);
      await sleep(1000);
    }
    await sleep(5000);
    say(`  --ops: controller pid ${ctl.pid} leads, /metrics on ${port} scraped every ${SCRAPE_EVERY_MS / 1000} s`);
    let scrapes = 0;
    const scraper = setInterval(() => {
      void fetch(`http://127.0.0.1:${port}/metrics`)
        .then((r) => r.text())
        .then(
          () => scrapes++,
          () => undefined,
        );
    }, SCRAPE_EVERY_MS);
    const rest = await helmcrewRest(be, { pid: ctl.pid, helm: o.helm, logFile: ctl.logFile }, o.restSeconds);
    clearInterval(scraper);
    return { ...rest, scrapes };
  } finally {
    await ctl.stop();
    forget();
  }
}

/** Per minute, the figures the issue asks for: controller CPU, kube-apiserver CPU, API requests (every client). */
export function perMinute(rest: Rest): { ctlCpuS: number; apiserverCpuS: number; requests: number } {
  const m = rest.seconds / 60;
  return { ctlCpuS: rest.ctlCpuS / m, apiserverCpuS: rest.apiserverCpuS / m, requests: (rest.requests.reads + rest.requests.writes) / m };
}
