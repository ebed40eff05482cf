// Scale benchmark: N HelmReleases of unicorn 1.0.0 (replicaCount 0) in one fresh namespace,
// installed by a controller child process (`node bin/helmcrew.js controller`) at concurrency
// 1, 4 and 8, then all upgraded to 2.0.0. Measures wall time until every release is Ready=True
// for its generation, helm processes started, peak RSS (/proc VmRSS sampled every 250 ms, and
// VmHWM), queue depth, and what the controller logged.
//
//   npx tsx bench/scale.ts [--releases 50] [--concurrency 1,4,8] [--phase-timeout 300] [--max-seconds 1500]
//                          [--compiled] [--state-dir DIR  (re-use a running environment, left running)]
import { mkdtemp, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue } from 'bullmq';
import type { HelmReleaseSpec } from '../src/api/helmrelease.js';
import { connectRedis } from '../src/core/redis.js';
import { RECONCILE_QUEUE } from '../src/controller/queue/reconcile-queue.js';
import { applyHelmRelease, helmReleaseObject } from '../src/dev/releases.js';
import {
  buildCompiled,
  countBy,
  currentCommit,
  createCountingHelm,
  createNamespace,
  deleteNamespaceFully,
  fmtMiB,
  fmtRatio,
  fmtS,
  formatFacts,
  intArg,
  intListArg,
  loadavgString,
  machineFacts,
  mapLimit,
  peakRssOfLifetimeKb,
  randomSuffix,
  runBench,
  say,
  spawnController,
  startBenchEnv,
  startSampler,
  summarizeLog,
  waitAllDone,
  type BenchEnv,
  type Cleanup,
  type LogSummary,
  type SampleStats,
} from './support.js';

const releases = intArg('releases', 50);
const concurrencies = intListArg('concurrency', [1, 4, 8]);
const phaseTimeoutMs = intArg('phase-timeout', 300) * 1000;
const maxSeconds = intArg('max-seconds', 1500);
/** Run the controller compiled by tsc (as the container image does) instead of bin/helmcrew.js through tsx. */
const compiled = process.argv.includes('--compiled');
let controllerEntry: string[] | undefined;

interface QueueStats {
  maxWaiting: number;
  maxActive: number;
  maxDelayed: number;
  failedAtEnd: number;
}

interface PhaseResult {
  phase: 'install' | 'upgrade';
  applyMs: number;
  wallMs: number;
  ready: number;
  failed: number;
  pending: number;
  timedOut: boolean;
  firstDoneMs: number;
  medianDoneMs: number;
  helm: Record<string, number>;
  helmTotal: number;
  sampled: SampleStats;
  queue: QueueStats;
  log: LogSummary;
  loadavgAtStart: string;
}

interface RunResult {
  concurrency: number;
  /** The commit the controller child started from: the checkout may move during a long run. */
  commit: string;
  namespace: string;
  startupMs: number;
  idleRssKb: number;
  hwmKb?: number;
  phases: PhaseResult[];
  namespaceDeleteMs?: number;
  helmStderrSample: string;
}

function spec(chartRepoUrl: string, version: string): HelmReleaseSpec {
  return { chart: { repository: chartRepoUrl, name: 'unicorn', version }, values: { replicaCount: 0 } };
}

function readRssKb(pid: number): number {
  const sampler = startSampler(pid, 1_000_000);
  return sampler.stop().peakRssKb;
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
  ctx: { namespace: string; pid: number; logFile: string; helm: Awaited<ReturnType<typeof createCountingHelm>>; queue: Queue },
  phase: 'install' | 'upgrade',
  version: string,
): Promise<PhaseResult> {
  const { kubeConfig, env } = be;
  const names = Array.from({ length: releases }, (_, i) => `unicorn-${String(i + 1).padStart(3, '0')}`);
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
  say(`  ${phase}: ${releases} HelmReleases applied in ${fmtS(applyMs)}; waiting for Ready`);
  const done = await waitAllDone(kubeConfig, ctx.namespace, generations, t0, phaseTimeoutMs);
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
    `  ${phase}: ${done.ready}/${releases} Ready (${done.failed} failed, ${done.pending} pending) in ${fmtS(wallMs)}; ` +
      `helm ${JSON.stringify(result.helm)}; peak RSS ${fmtMiB(sampled.peakRssKb)}; load ${sampled.loadavgAtEnd}`,
  );
  return result;
}

async function runConcurrency(be: BenchEnv, concurrency: number, cleanup: Cleanup): Promise<RunResult> {
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
    entry: controllerEntry,
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
  const idleRssKb = readRssKb(ctl.pid);

  const phaseCtx = { namespace, pid: ctl.pid, logFile: ctl.logFile, helm, queue };
  const phases: PhaseResult[] = [];
  phases.push(await runPhase(be, phaseCtx, 'install', '1.0.0'));
  if (phases[0]!.ready === releases) phases.push(await runPhase(be, phaseCtx, 'upgrade', '2.0.0'));
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

function report(facts: string, runs: RunResult[]): string {
  const out: string[] = [];
  const runner = compiled
    ? 'node <tmp>/dist/cli/main.js controller (tsc-compiled, as in the image)'
    : 'node bin/helmcrew.js controller (no dist/: TypeScript through tsx in-process)';
  out.push(`## scale: ${releases} releases, concurrency ${concurrencies.join(', ')}`, '', '```', facts, `controller:  ${runner}`, '```', '');
  out.push(
    '| conc. | phase | wall | rel/min | ready/failed/pending | helm processes | peak RSS ctl (VmRSS) | peak RSS ctl+helm tree (VmRSS sum / RssAnon sum) | peak helm procs | max queue waiting/active/delayed | load avg at end |',
  );
  out.push('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const run of runs) {
    for (const p of run.phases) {
      const perMin = p.ready / (p.wallMs / 60_000);
      const helm =
        Object.entries(p.helm)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ') || 'none';
      out.push(
        `| ${run.concurrency} | ${p.phase} | ${fmtS(p.wallMs)}${p.timedOut ? ' (timed out)' : ''} | ${perMin.toFixed(1)} | ${p.ready}/${p.failed}/${p.pending} | ${p.helmTotal} (${helm}) | ${fmtMiB(p.sampled.peakRssKb)} | ${fmtMiB(p.sampled.peakTreeRssKb)} / ${fmtMiB(p.sampled.peakTreeAnonKb)} | ${p.sampled.peakHelmProcesses} (mean ${p.sampled.meanHelmProcesses.toFixed(1)}) | ${p.queue.maxWaiting}/${p.queue.maxActive}/${p.queue.maxDelayed} | ${p.sampled.loadavgAtEnd} |`,
      );
    }
  }
  out.push('');
  out.push('| conc. | commit at controller start | controller start-up | idle RSS | lifetime peak RSS (VmHWM) | namespace delete |');
  out.push('|---|---|---|---|---|---|');
  for (const run of runs) {
    out.push(
      `| ${run.concurrency} | ${run.commit} | ${fmtS(run.startupMs)} | ${fmtMiB(run.idleRssKb)} | ${run.hwmKb ? fmtMiB(run.hwmKb) : 'n/a'} | ${run.namespaceDeleteMs !== undefined ? fmtS(run.namespaceDeleteMs) : 'n/a'} |`,
    );
  }
  out.push('');
  out.push('Time to first / median / last release done, and per-reconcile and per-helm durations from the controller log (median / p90 / max ms):', '');
  for (const run of runs) {
    for (const p of run.phases) {
      const rec = Object.entries(p.log.reconcileMs)
        .map(([k, q]) => `${k} n=${q.n} ${q.median}/${q.p90}/${q.max}`)
        .join('; ');
      const helm = Object.entries(p.log.helmMs)
        .map(([k, q]) => `${k} n=${q.n} ${q.median}/${q.p90}/${q.max}`)
        .join('; ');
      out.push(
        `- c=${run.concurrency} ${p.phase}: first ${fmtS(p.firstDoneMs)}, median ${fmtS(p.medianDoneMs)}, last ${fmtS(p.wallMs)} (apply took ${fmtS(p.applyMs)}); reconcile: ${rec || 'none'}; helm: ${helm || 'none'}`,
      );
    }
  }
  out.push('');
  const byConc = new Map(runs.map((r) => [r.concurrency, r]));
  const pairs: Array<[number, number]> = [];
  for (let i = 1; i < concurrencies.length; i++) pairs.push([concurrencies[i]!, concurrencies[i - 1]!]);
  if (pairs.length > 0) {
    out.push('Speed-up ratios (wall time of the lower concurrency ÷ wall time of the higher; 1.00× = no gain), same run, same machine:', '');
    for (const [hi, lo] of pairs) {
      const speed = (phase: 'install' | 'upgrade') => {
        const pl = byConc.get(lo)?.phases.find((p) => p.phase === phase);
        const ph = byConc.get(hi)?.phases.find((p) => p.phase === phase);
        if (!pl || !ph || pl.timedOut || ph.timedOut) return 'n/a';
        return fmtRatio(pl.wallMs / ph.wallMs);
      };
      out.push(`- concurrency ${hi} vs ${lo}: install ${speed('install')}, upgrade ${speed('upgrade')}`);
    }
    out.push('');
  }
  out.push('Controller log per phase (levels; reconciled actions; retried jobs; throttling mentions):', '');
  for (const run of runs) {
    for (const p of run.phases) {
      out.push(
        `- c=${run.concurrency} ${p.phase}: ${p.log.lines} lines ${JSON.stringify(p.log.byLevel)}; reconciled ${JSON.stringify(p.log.reconciled)}; retried ${p.log.retriedJobs}; throttle/429 mentions ${p.log.throttleMentions}; BullMQ failed at end ${p.queue.failedAtEnd}`,
      );
      for (const problem of p.log.problems.slice(0, 8)) out.push(`  - ${problem.level} ×${problem.count} "${problem.msg}": ${problem.example}`);
    }
    if (run.helmStderrSample.trim()) out.push(`  - helm stderr (first 2000 chars): ${JSON.stringify(run.helmStderrSample)}`);
  }
  return out.join('\n');
}

await runBench('scale', maxSeconds, async (cleanup) => {
  const loadBefore = loadavgString();
  say(`scale: ${releases} releases, concurrency ${concurrencies.join(',')}; load average ${loadBefore}`);
  const be = await startBenchEnv(cleanup);
  if (compiled) {
    say('compiling src/ with tsc into the bench dir (--compiled)');
    controllerEntry = await buildCompiled(join(be.dir, 'build'));
  }
  const facts = { ...machineFacts(be.env.helmBin), loadavg: loadBefore };
  const runs: RunResult[] = [];
  for (const concurrency of concurrencies) runs.push(await runConcurrency(be, concurrency, cleanup));
  if (new Set(runs.map((r) => r.commit)).size > 1) say('WARNING: the checkout changed between runs; the concurrency levels ran different code');
  const text = report(formatFacts(facts) + `\nload avg:    ${loadavgString()} at end`, runs);
  process.stdout.write(`${text}\n`);
  const incomplete = runs.filter((r) => r.phases.length < 2 || r.phases.some((p) => p.ready !== releases));
  if (incomplete.length > 0) throw new Error(`not every release became Ready at concurrency ${incomplete.map((r) => r.concurrency).join(', ')}`);
});
