// Markdown for bench/scale.ts: per concurrency and phase, wall time, helm processes, memory,
// queue depth; speed-up ratios between concurrency levels; what the controller logged.
import type { LogSummary } from './controller-log.js';
import type { SampleStats } from './proc-sampler.js';
import { fmtMiB, fmtRatio, fmtS } from './stats.js';

export interface QueueStats {
  maxWaiting: number;
  maxActive: number;
  maxDelayed: number;
  failedAtEnd: number;
}

export interface PhaseResult {
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

export interface RunResult {
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

export interface ScaleMeta {
  facts: string;
  releases: number;
  concurrencies: number[];
  /** The controller ran compiled by tsc (as in the image), not through tsx. */
  compiled: boolean;
}

export function report(meta: ScaleMeta, runs: RunResult[]): string {
  const { facts, releases, concurrencies, compiled } = meta;
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
