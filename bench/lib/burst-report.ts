// Markdown for bench/burst.ts: one table per N, the steady state, and the ratios of one run.
import { parseDuration } from '../../src/api/duration.js';
import type { Burst, Rest } from './burst-phases.js';
import { formatBreakdown } from './cpu-breakdown.js';
import { perMinute } from './ops-rest.js';
import { fmtMiB, fmtRatio, fmtS, median } from './stats.js';

export interface SizeResult {
  n: number;
  floor?: Burst[];
  helmcrew: { bursts: Burst[]; latencies: number[]; rest?: Rest; ops?: Rest; idleRssKb: number; hwmKb?: number; startupMs: number };
}

interface Meta {
  facts: string;
  /** How the run was started (`npm run bench -- burst …`). */
  command: string;
  chart: string;
  code: string;
  concurrency: number;
  interval: string;
  /** The controller's runtime variables as the image sets them, formatted. */
  runtimeEnv: string;
  restSeconds: number;
}

const total = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);
const per = (x: number, n: number) => (x / n).toFixed(2);

export function report(meta: Meta, results: SizeResult[]): string {
  const out: string[] = [];
  out.push(
    `## burst: chart ${meta.chart}, N = ${results.map((r) => r.n).join(', ')}, concurrency ${meta.concurrency}`,
    '',
    '```',
    meta.facts,
    `command:     ${meta.command}`,
    `code:        ${meta.code}`,
    `controller:  compiled by tsc, ${meta.runtimeEnv}, interval ${meta.interval}`,
    '```',
    '',
  );
  out.push(
    "| N | phase | helmcrew wall | floor wall | ratio | helm procs / release (helmcrew, floor) | API reads / writes per release, helmcrew (bench's own) | floor | ctl peak RSS | ctl+helm tree peak (VmRSS / RssAnon) | floor tree peak (VmRSS / RssAnon) | ctl CPU s |",
  );
  out.push('|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    for (const b of r.helmcrew.bursts) {
      const f = r.floor?.find((x) => x.what === b.what);
      const ratio = f && !b.timedOut ? fmtRatio(b.wallMs / f.wallMs) : 'n/a';
      out.push(
        `| ${r.n} | ${b.what} | ${fmtS(b.wallMs)}${b.timedOut ? ` (timed out, ${b.done} done)` : ''} | ${f ? fmtS(f.wallMs) : '—'} | ${ratio} | ${per(total(b.helm), r.n)} ${JSON.stringify(b.helm)}, ${f ? per(total(f.helm), r.n) : '—'} | ${per(b.requests.reads, r.n)} / ${per(b.requests.writes, r.n)} (${b.benchRequests}) | ${f ? `${per(f.requests.reads, r.n)} / ${per(f.requests.writes, r.n)}` : '—'} | ${fmtMiB(b.sampled.peakRssKb)} | ${fmtMiB(b.sampled.peakTreeRssKb)} / ${fmtMiB(b.sampled.peakTreeAnonKb)} | ${f ? `${fmtMiB(f.sampled.peakTreeRssKb)} / ${fmtMiB(f.sampled.peakTreeAnonKb)}` : '—'} | ${b.cpuS.ctl?.toFixed(1) ?? '—'} |`,
      );
    }
  }
  out.push('');
  out.push('| N | controller start-up | idle RSS (after start) | lifetime peak RSS (VmHWM) | single spec change → `helm upgrade` starts (3 tries, median) |');
  out.push('|---|---|---|---|---|');
  for (const r of results) {
    const h = r.helmcrew;
    const lat = h.latencies.length ? `${h.latencies.map((ms) => `${ms.toFixed(0)} ms`).join(', ')} (median ${median(h.latencies).toFixed(0)} ms)` : '—';
    out.push(`| ${r.n} | ${fmtS(h.startupMs)} | ${fmtMiB(h.idleRssKb)} | ${h.hwmKb ? fmtMiB(h.hwmKb) : 'n/a'} | ${lat} |`);
  }
  out.push('');
  const intervalS = parseDuration(meta.interval) / 1000;
  if (results.some((r) => r.helmcrew.rest)) out.push(...restTable(meta, results, intervalS));
  if (results.some((r) => r.helmcrew.ops)) out.push(...opsTable(results));
  out.push("Largest request rows per burst (all clients, including the control plane's own controllers and the bench):", '');
  for (const r of results) {
    for (const b of r.helmcrew.bursts) out.push(`- N=${r.n} helmcrew ${b.what}: ${b.requests.top.join('; ')}`);
    for (const b of r.floor ?? []) out.push(`- N=${r.n} floor ${b.what}: ${b.requests.top.join('; ')}`);
  }
  out.push('');
  out.push('CPU seconds of the whole machine per burst, by process ("short-lived" is mostly helm and its counting wrapper):', '');
  for (const r of results) {
    for (const b of r.helmcrew.bursts) out.push(`- N=${r.n} helmcrew ${b.what}: ${formatBreakdown(b.cpuByRole)}`);
    for (const b of r.floor ?? []) out.push(`- N=${r.n} floor ${b.what}: ${formatBreakdown(b.cpuByRole)}`);
  }
  out.push('');
  out.push('Controller log per burst (reconciled actions; warnings; per-reconcile and per-helm median/p90/max ms):', '');
  for (const r of results) {
    for (const b of r.helmcrew.bursts) {
      if (!b.log) continue;
      const rec = Object.entries(b.log.reconcileMs)
        .map(([k, q]) => `${k} n=${q.n} ${q.median}/${q.p90}/${q.max}`)
        .join('; ');
      const helm = Object.entries(b.log.helmMs)
        .map(([k, q]) => `${k} n=${q.n} ${q.median}/${q.p90}/${q.max}`)
        .join('; ');
      out.push(`- N=${r.n} ${b.what}: reconciled ${JSON.stringify(b.log.reconciled)}; levels ${JSON.stringify(b.log.byLevel)}; reconcile ${rec}; helm ${helm}`);
      for (const p of b.log.problems.slice(0, 5)) out.push(`  - ${p.level} ×${p.count} "${p.msg}": ${p.example.slice(0, 300)}`);
    }
  }
  return out.join('\n');
}

/** The steady-state table (only when the run measured it). */
function restTable(meta: Meta, results: SizeResult[], intervalS: number): string[] {
  const out: string[] = [];
  out.push(
    `Steady state: ${meta.restSeconds} s at rest, every release in sync, interval ${meta.interval} (${(meta.restSeconds / intervalS).toFixed(1)} intervals):`,
    '',
  );
  out.push(
    '| N | HelmRelease writes (status) | helm processes | checks done (reconciled by action) | full resyncs done | ctl CPU s total / per full resync | kube-apiserver CPU s total / per full resync | API reads / writes, all clients | ctl RSS peak at rest | top requests |',
  );
  out.push('|---|---|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    const rest = r.helmcrew.rest;
    if (!rest) continue;
    const checks = total(rest.reconciled);
    const resyncs = checks / r.n;
    const perResync = (cpu: number) => (resyncs > 0 ? (cpu / resyncs).toFixed(2) : 'n/a');
    out.push(
      `| ${r.n} | ${rest.requests.helmReleaseWrites} (${rest.requests.helmReleaseStatusWrites}) | ${total(rest.helm)} | ${checks} ${JSON.stringify(rest.reconciled)} | ${resyncs.toFixed(2)} | ${rest.ctlCpuS.toFixed(2)} / ${perResync(rest.ctlCpuS)} | ${rest.apiserverCpuS.toFixed(2)} / ${perResync(rest.apiserverCpuS)} | ${rest.requests.reads} / ${rest.requests.writes} | ${fmtMiB(rest.sampled.peakRssKb)} | ${rest.requests.top.slice(0, 6).join('; ')} |`,
    );
  }
  out.push('');
  return out;
}

/** --ops: the steady state per minute, plain against /metrics scraped and the Lease held. */
function opsTable(results: SizeResult[]): string[] {
  const out = [
    'At rest per minute, plain (no HEALTH_PORT, no leader election) against --ops (/metrics scraped every 15 s, leader Lease held):',
    '',
    '| N | controller | checks | ctl CPU s / min | kube-apiserver CPU s / min | API requests / min (reads / writes), all clients | top requests |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    const { rest, ops } = r.helmcrew;
    if (!rest || !ops) continue;
    for (const [label, x] of [
      ['plain', rest],
      ['--ops', ops],
    ] as const) {
      const pm = perMinute(x);
      const m = x.seconds / 60;
      out.push(
        `| ${r.n} | ${label} | ${total(x.reconciled)} | ${pm.ctlCpuS.toFixed(2)} | ${pm.apiserverCpuS.toFixed(2)} | ${pm.requests.toFixed(0)} (${(x.requests.reads / m).toFixed(0)} / ${(x.requests.writes / m).toFixed(0)}) | ${x.requests.top.slice(0, 6).join('; ')} |`,
      );
    }
    const a = perMinute(rest);
    const b = perMinute(ops);
    out.push(
      '',
      `N=${r.n}: --ops / plain: ctl CPU ${fmtRatio(b.ctlCpuS / a.ctlCpuS)}, kube-apiserver CPU ${fmtRatio(b.apiserverCpuS / a.apiserverCpuS)}, API requests ${fmtRatio(b.requests / a.requests)}`,
    );
  }
  out.push('');
  return out;
}
