// Scale benchmark: N HelmReleases of unicorn 1.0.0 (replicaCount 0) in one fresh namespace,
// installed by a controller child process (`node bin/helmcrew.js controller`) at concurrency
// 1, 4 and 8, then all upgraded to 2.0.0. Measures wall time until every release is Ready=True
// for its generation, helm processes started, peak RSS (/proc VmRSS sampled every 250 ms, and
// VmHWM), queue depth, and what the controller logged.
import { mkdtemp, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue } from 'bullmq';
import type { HelmReleaseSpec } from '../src/api/helmrelease.js';
import { connectRedis } from '../src/core/redis.js';
import { RECONCILE_QUEUE } from '../src/controller/queue/reconcile-queue.js';
import {
  applyHelmRelease,
  createNamespace,
  deleteNamespaceFully,
  helmReleaseObject,
  mapLimit,
  randomSuffix,
  waitAllReconciled,
} from '../src/dev/harness/index.js';
import type { Benchmark } from './lib/benchmark.js';
import type { Cleanup } from './lib/cleanup.js';
import { buildCompiled, spawnController } from './lib/controller-child.js';
import { summarizeLog } from './lib/controller-log.js';
import { countBy, createCountingHelm } from './lib/counting-helm.js';
import { startBenchEnv, type BenchEnv } from './lib/environment.js';
import { currentCommit, formatFacts, loadavgString, machineFacts } from './lib/machine.js';
import { currentRssKb, peakRssOfLifetimeKb, startSampler } from './lib/proc-sampler.js';
import { say } from './lib/say.js';
import { report, type PhaseResult, type QueueStats, type RunResult } from './lib/scale-report.js';
import { fmtMiB, fmtS } from './lib/stats.js';

interface Settings {
  releases: number;
  concurrencies: number[];
  phaseTimeoutMs: number;
  /** The controller compiled by tsc (as the container image runs it); undefined: bin/helmcrew.js through tsx. */
  controllerEntry?: string[];
}

function spec(chartRepoUrl: string, version: string): HelmReleaseSpec {
  return { chart: { repository: chartRepoUrl, name: 'unicorn', version }, values: { replicaCount: 0 } };
}

/** Polls BullMQ's job counts for this prefix once a second. */
function startQueueMonitor(queue: Queue): { stop: () => Promise<QueueStats> } {
  const stats: QueueStats = { maxWaiting: 0, maxActive: 0, maxDelayed: 0, failedAtEnd: 0 };
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'prioritized').catch(() => undefined);
      if (counts) {
        stats.maxWaiting = Math.max(stats.maxWaiting, (counts.waiting ?? 0) + (counts.prioritized ?? 0));
        stats.maxActive = Math.max(stats.maxActive, counts.active ?? 0);
        stats.maxDelayed = Math.max(stats.maxDelayed, counts.delayed ?? 0);
        stats.failedAtEnd = counts.failed ?? 0;
      }
      await sleep(1000);
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      return stats;
    },
  };
}

async function runPhase(
  be: BenchEnv,
  s: Settings,
  ctx: { namespace: string; pid: number; logFile: string; helm: Awaited<ReturnType<typeof createCountingHelm>>; queue: Queue },
  phase: 'install' | 'upgrade',
  version: string,
): Promise<PhaseResult> {
  const { kubeConfig, env } = be;
  const names = Array.from({ length: s.releases }, (_, i) => `unicorn-${String(i + 1).padStart(3, '0')}`);
  const helmBefore = (await ctx.helm.invocations()).length;
  const logFrom = (await stat(ctx.logFile)).size;
  const loadavgAtStart = loadavgString();
  const sampler = startSampler(ctx.pid);
  const queueMonitor = startQueueMonitor(ctx.queue);
  const t0 = Date.now();
  const generations = new Map<string, number>();
  await mapLimit(names, 8, async (name) => {
    generations.set(name, await applyHelmRelease(kubeConfig, helmReleaseObject(ctx.namespace, name, spec(env.chartRepoUrl, version))));
  });
  const applyMs = Date.now() - t0;
  say(`  ${phase}: ${s.releases} HelmReleases applied in ${fmtS(applyMs)}; waiting for Ready`);
  const done = await waitAllReconciled(kubeConfig, ctx.namespace, generations, t0, s.phaseTimeoutMs);
  const wallMs = done.timedOut ? Date.now() - t0 : (done.doneAtMs[done.doneAtMs.length - 1] ?? 0);
  // Let the last "reconciled" log lines land before reading the log.
  await sleep(300);
  const sampled = sampler.stop();
  const queue = await queueMonitor.stop();
  const helmRuns = (await ctx.helm.invocations()).slice(helmBefore);
  const log = await summarizeLog(ctx.logFile, logFrom);
  const result: PhaseResult = {
    phase,
    applyMs,
    wallMs,
    ready: done.ready,
    failed: done.failed,
    pending: done.pending,
    timedOut: done.timedOut,
    firstDoneMs: done.doneAtMs[0] ?? NaN,
    medianDoneMs: done.doneAtMs[Math.floor(done.doneAtMs.length / 2)] ?? NaN,
    helm: countBy(helmRuns),
    helmTotal: helmRuns.length,
    sampled,
    queue,
    log,
    loadavgAtStart,
  };
  say(
    `  ${phase}: ${done.ready}/${s.releases} Ready (${done.failed} failed, ${done.pending} pending) in ${fmtS(wallMs)}; ` +
      `helm ${JSON.stringify(result.helm)}; peak RSS ${fmtMiB(sampled.peakRssKb)}; load ${sampled.loadavgAtEnd}`,
  );
  return result;
}

async function runConcurrency(be: BenchEnv, s: Settings, concurrency: number, cleanup: Cleanup): Promise<RunResult> {
  const dir = await mkdtemp(join(be.dir, `c${concurrency}-`));
  const helm = await createCountingHelm(dir, be.env.helmBin);
  const namespace = await createNamespace(be.kubeConfig, `bench-scale-c${concurrency}`);
  const forgetNamespace = cleanup.add(`delete namespace ${namespace}`, async () => {
    await deleteNamespaceFully(be.kubeConfig, namespace);
  });
  const prefix = `bench-scale-${randomSuffix()}-c${concurrency}`;
  const connection = connectRedis(be.env.redisUrl);
  const queue = new Queue(RECONCILE_QUEUE, { connection, prefix });
  const forgetQueue = cleanup.add(`close queue monitor ${prefix}`, async () => {
    await queue.close();
    connection.disconnect();
  });
  const commit = currentCommit();
  say(`concurrency ${concurrency}: namespace ${namespace}, queue prefix ${prefix}, commit ${commit}`);
  const ctl = await spawnController({
    env: be.env,
    entry: s.controllerEntry,
    helmBin: helm.bin,
    namespace,
    prefix,
    concurrency,
    workDir: join(dir, 'work'),
    logFile: join(dir, 'controller.log'),
  });
  const forgetController = cleanup.add(`stop controller pid ${ctl.pid}`, () => ctl.stop());
  say(`  controller pid ${ctl.pid} started in ${fmtS(ctl.startupMs)}; log ${ctl.logFile}`);
  await sleep(1000);
  const idleRssKb = currentRssKb(ctl.pid) ?? 0;

  const phaseCtx = { namespace, pid: ctl.pid, logFile: ctl.logFile, helm, queue };
  const phases: PhaseResult[] = [];
  phases.push(await runPhase(be, s, phaseCtx, 'install', '1.0.0'));
  if (phases[0]!.ready === s.releases) phases.push(await runPhase(be, s, phaseCtx, 'upgrade', '2.0.0'));
  else say('  not every release installed; skipping the upgrade phase');

  const hwmKb = peakRssOfLifetimeKb(ctl.pid);
  await ctl.stop();
  forgetController();
  await queue.close();
  connection.disconnect();
  forgetQueue();
  const namespaceDeleteMs = await deleteNamespaceFully(be.kubeConfig, namespace);
  forgetNamespace();
  const stderr = await helm.stderr();
  return { concurrency, commit, namespace, startupMs: ctl.startupMs, idleRssKb, hwmKb, phases, namespaceDeleteMs, helmStderrSample: stderr.slice(0, 2000) };
}

export const benchmark: Benchmark = {
  usage: '[--releases 50] [--concurrency 1,4,8] [--phase-timeout 300] [--compiled (the controller compiled by tsc, as in the image)]',
  options: {
    releases: { type: 'string' },
    concurrency: { type: 'string' },
    'phase-timeout': { type: 'string' },
    compiled: { type: 'boolean' },
  },
  maxSeconds: 1500,
  async run(args, cleanup) {
    const s: Settings = {
      releases: args.int('releases', 50),
      concurrencies: args.intList('concurrency', [1, 4, 8]),
      phaseTimeoutMs: args.int('phase-timeout', 300) * 1000,
    };
    const compiled = args.flag('compiled');
    const loadBefore = loadavgString();
    say(`scale: ${s.releases} releases, concurrency ${s.concurrencies.join(',')}; load average ${loadBefore}`);
    const be = await startBenchEnv(cleanup, args.optional('state-dir'));
    if (compiled) {
      say('compiling src/ with tsc into the bench dir (--compiled)');
      s.controllerEntry = await buildCompiled(join(be.dir, 'build'));
    }
    const facts = { ...machineFacts(be.env.helmBin), loadavg: loadBefore };
    const runs: RunResult[] = [];
    for (const concurrency of s.concurrencies) runs.push(await runConcurrency(be, s, concurrency, cleanup));
    if (new Set(runs.map((r) => r.commit)).size > 1) say('WARNING: the checkout changed between runs; the concurrency levels ran different code');
    const facts2 = formatFacts(facts) + `\nload avg:    ${loadavgString()} at end\ncommand:     npm run bench -- scale ${args.raw.join(' ')}`.trimEnd();
    const text = report({ facts: facts2, releases: s.releases, concurrencies: s.concurrencies, compiled }, runs);
    process.stdout.write(`${text}\n`);
    const incomplete = runs.filter((r) => r.phases.length < 2 || r.phases.some((p) => p.ready !== s.releases));
    if (incomplete.length > 0) throw new Error(`not every release became Ready at concurrency ${incomplete.map((r) => r.concurrency).join(', ')}`);
  },
};
