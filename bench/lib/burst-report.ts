// The tables of bench/burst.ts: the bursts against the floor, start-up and single-change latency,
// the steady state, and where requests, CPU and the controller's time went.
import { parseDuration } from '../../src/api/duration.js';
import type { Burst, Rest } from './burst-phases.js';
import { formatBreakdown } from './cpu-breakdown.js';
import { perMinute } from './ops-rest.js';
import { redisTable } from './redis-per-release.js';
import type { Table } from './result.js';
import { fmtMiB, fmtRatio, fmtS, median } from './stats.js';

export interface SizeResult {
  n: number;
  floor?: Burst[];
  helmcrew: { bursts: Burst[]; latencies: number[]; rest?: Rest; ops?: Rest; idleRssKb: number; hwmKb?: number; startupMs: number };
}

export interface BurstMeta {
  chart: string;
  /** The code measured: the checkout's commit, or `--ref`'s. */
  code: string;
  concurrency: number;
  interval: string;
  /** The controller's runtime variables as the image sets them, formatted. */
  runtimeEnv: string;
  restSeconds: number;
  /** Which side ran first in each size. */
  order: string;
  floorEnv: string;
  /** The floor's extra helm flags (floor-flags.ts); absent in results from before they existed. */
  floorFlags?: string;
  controllerEnv?: string;
}

const total = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);
const per = (x: number, n: number) => (x / n).toFixed(2);

export function burstTables(meta: BurstMeta, results: SizeResult[]): Table[] {
  const tables: Table[] = [burstTable(meta, results), startupTable(results)];
  const intervalS = parseDuration(meta.interval) / 1000;
  if (results.some((r) => r.helmcrew.rest)) tables.push(restTable(meta, results, intervalS));
  if (results.some((r) => r.helmcrew.ops)) tables.push(opsTable(results));
  tables.push(...detailTables(results));
  if (results.some((r) => r.helmcrew.bursts.some((b) => b.redisCalls))) tables.push(redisTable(results));
  return tables;
}

function burstTable(meta: BurstMeta, results: SizeResult[]): Table {
  const rows: Table['rows'] = [];
  for (const r of results) {
    for (const b of r.helmcrew.bursts) {
      const f = r.floor?.find((x) => x.what === b.what);
      const ratio = f && !b.timedOut ? fmtRatio(b.wallMs / f.wallMs) : 'n/a';
      rows.push([
        r.n,
        b.what,
        `${fmtS(b.wallMs)}${b.timedOut ? ` (timed out, ${b.done} done)` : ''}`,
        f ? fmtS(f.wallMs) : null,
        ratio,
        `${per(total(b.helm), r.n)} ${JSON.stringify(b.helm)}, ${f ? per(total(f.helm), r.n) : '—'}`,
        `${per(b.requests.reads, r.n)} / ${per(b.requests.writes, r.n)} (${b.benchRequests})`,
        f ? `${per(f.requests.reads, r.n)} / ${per(f.requests.writes, r.n)}` : null,
        fmtMiB(b.sampled.peakRssKb),
        `${fmtMiB(b.sampled.peakTreeRssKb)} / ${fmtMiB(b.sampled.peakTreeAnonKb)}`,
        f ? `${fmtMiB(f.sampled.peakTreeRssKb)} / ${fmtMiB(f.sampled.peakTreeAnonKb)}` : null,
        b.cpuS.ctl?.toFixed(1) ?? null,
      ]);
    }
  }
  return {
    title: `Bursts: chart ${meta.chart}, concurrency ${meta.concurrency}, helmcrew against the ${meta.floorFlags && !meta.floorFlags.startsWith('none') ? `${meta.floorFlags.split(':')[0]} ` : ''}floor (\`xargs -P${meta.concurrency} helm upgrade --install\`)`,
    columns: [
      'N',
      'phase',
      'helmcrew wall',
      'floor wall',
      'ratio',
      'helm procs / release (helmcrew, floor)',
      "API reads / writes per release, helmcrew (bench's own)",
      'floor',
      'ctl peak RSS',
      'ctl+helm tree peak (VmRSS / RssAnon)',
      'floor tree peak (VmRSS / RssAnon)',
      'ctl CPU s',
    ],
    rows,
    notes: [
      `Controller compiled by tsc from ${meta.code}, ${meta.runtimeEnv}, interval ${meta.interval}; ${meta.order}; floor flags ${meta.floorFlags ?? 'none'}; floor env ${meta.floorEnv}${meta.controllerEnv ? `; controller env ${meta.controllerEnv}` : ''}.`,
    ],
  };
}

function startupTable(results: SizeResult[]): Table {
  return {
    title: 'Controller start-up, memory and a single spec change',
    columns: [
      'N',
      'controller start-up',
      'idle RSS (after start)',
      'lifetime peak RSS (VmHWM)',
      'single spec change → `helm upgrade` starts (3 tries, median)',
    ],
    rows: results.map((r) => {
      const h = r.helmcrew;
      const lat = h.latencies.length ? `${h.latencies.map((ms) => `${ms.toFixed(0)} ms`).join(', ')} (median ${median(h.latencies).toFixed(0)} ms)` : null;
      return [r.n, fmtS(h.startupMs), fmtMiB(h.idleRssKb), h.hwmKb ? fmtMiB(h.hwmKb) : 'n/a', lat];
    }),
  };
}

/** The steady-state table (only when the run measured it). */
function restTable(meta: BurstMeta, results: SizeResult[], intervalS: number): Table {
  const rows: Table['rows'] = [];
  for (const r of results) {
    const rest = r.helmcrew.rest;
    if (!rest) continue;
    const checks = total(rest.reconciled);
    const resyncs = checks / r.n;
    const perResync = (cpu: number) => (resyncs > 0 ? (cpu / resyncs).toFixed(2) : 'n/a');
    rows.push([
      r.n,
      `${rest.requests.helmReleaseWrites} (${rest.requests.helmReleaseStatusWrites})`,
      total(rest.helm),
      `${checks} ${JSON.stringify(rest.reconciled)}`,
      resyncs.toFixed(2),
      `${rest.ctlCpuS.toFixed(2)} / ${perResync(rest.ctlCpuS)}`,
      `${rest.apiserverCpuS.toFixed(2)} / ${perResync(rest.apiserverCpuS)}`,
      `${rest.requests.reads} / ${rest.requests.writes}`,
      `${fmtMiB(rest.sampled.medianRssKb)} / ${fmtMiB(rest.sampled.peakRssKb)}`,
      rest.requests.top.slice(0, 6).join('; '),
    ]);
  }
  return {
    title: `Steady state: ${meta.restSeconds} s at rest, every release in sync, interval ${meta.interval} (${(meta.restSeconds / intervalS).toFixed(1)} intervals)`,
    columns: [
      'N',
      'HelmRelease writes (status)',
      'helm processes',
      'checks done (reconciled by action)',
      'full resyncs done',
      'ctl CPU s total / per full resync',
      'kube-apiserver CPU s total / per full resync',
      'API reads / writes, all clients',
      'ctl RSS at rest: median / peak',
      'top requests',
    ],
    rows,
  };
}

/** --ops: the steady state per minute, plain against /metrics scraped and the Lease held. */
function opsTable(results: SizeResult[]): Table {
  const rows: Table['rows'] = [];
  const notes: string[] = [];
  for (const r of results) {
    const { rest, ops } = r.helmcrew;
    if (!rest || !ops) continue;
    for (const [label, x] of [
      ['plain', rest],
      ['--ops', ops],
    ] as const) {
      const pm = perMinute(x);
      const m = x.seconds / 60;
      rows.push([
        r.n,
        label,
        total(x.reconciled),
        pm.ctlCpuS.toFixed(2),
        pm.apiserverCpuS.toFixed(2),
        `${pm.requests.toFixed(0)} (${(x.requests.reads / m).toFixed(0)} / ${(x.requests.writes / m).toFixed(0)})`,
        x.requests.top.slice(0, 6).join('; '),
      ]);
    }
    const a = perMinute(rest);
    const b = perMinute(ops);
    notes.push(
      `N=${r.n}: --ops / plain: ctl CPU ${fmtRatio(b.ctlCpuS / a.ctlCpuS)}, kube-apiserver CPU ${fmtRatio(b.apiserverCpuS / a.apiserverCpuS)}, API requests ${fmtRatio(b.requests / a.requests)}`,
    );
  }
  return {
    title: 'At rest per minute, plain (no HEALTH_PORT, no leader election) against --ops (/metrics scraped every 15 s, leader Lease held)',
    columns: ['N', 'controller', 'checks', 'ctl CPU s / min', 'kube-apiserver CPU s / min', 'API requests / min (reads / writes), all clients', 'top requests'],
    rows,
    notes,
  };
}

/** Where each burst's requests, CPU and controller time went. */
function detailTables(results: SizeResult[]): Table[] {
  const sides = results.flatMap((r) => [
    ...r.helmcrew.bursts.map((b) => ({ n: r.n, side: 'helmcrew', b })),
    ...(r.floor ?? []).map((b) => ({ n: r.n, side: 'floor', b })),
  ]);
  const logRows: Table['rows'] = [];
  const problems: string[] = [];
  for (const r of results) {
    for (const b of r.helmcrew.bursts) {
      if (!b.log) continue;
      const quantiles = (q: Record<string, { n: number; median: number; p90: number; max: number }>) =>
        Object.entries(q)
          .map(([k, v]) => `${k} n=${v.n} ${v.median}/${v.p90}/${v.max}`)
          .join('; ');
      logRows.push([r.n, b.what, JSON.stringify(b.log.reconciled), JSON.stringify(b.log.byLevel), quantiles(b.log.reconcileMs), quantiles(b.log.helmMs)]);
      for (const p of b.log.problems.slice(0, 5)) problems.push(`- N=${r.n} ${b.what}: ${p.level} ×${p.count} "${p.msg}": ${p.example.slice(0, 300)}`);
    }
  }
  return [
    ...comparisonTables(results),
    {
      title: "Largest request rows per burst (all clients, including the control plane's own controllers and the bench)",
      columns: ['N', 'side', 'phase', 'requests', 'Secrets, every verb'],
      rows: sides.map(({ n, side, b }) => [n, side, b.what, b.requests.top.join('; '), (b.requests.secrets ?? []).join('; ') || 'none']),
    },
    {
      title: 'CPU seconds of the whole machine per burst, by process ("short-lived" is mostly helm and its counting wrapper)',
      columns: ['N', 'side', 'phase', 'CPU s by process'],
      rows: sides.map(({ n, side, b }) => [n, side, b.what, formatBreakdown(b.cpuByRole)]),
    },
    {
      title: 'Controller log per burst (reconciled actions; levels; per-reconcile and per-helm median/p90/max ms)',
      columns: ['N', 'phase', 'reconciled', 'levels', 'reconcile ms', 'helm ms'],
      rows: logRows,
      notes: problems,
    },
  ];
}

const cpu = (b: Burst, ...roles: string[]) => roles.reduce((sum, role) => sum + (b.cpuByRole[role] ?? 0), 0);

/** helmcrew against the floor per release: helm slots, CPU by role, and the request rows that differ. */
function comparisonTables(results: SizeResult[]): Table[] {
  const slotRows: Table['rows'] = [];
  const requestRows: Table['rows'] = [];
  for (const r of results) {
    for (const b of r.helmcrew.bursts) {
      const f = r.floor?.find((x) => x.what === b.what);
      for (const [side, x] of [
        ['helmcrew', b],
        ['floor', f],
      ] as const) {
        if (!x?.slots) continue;
        slotRows.push([
          r.n,
          b.what,
          side,
          x.slots.meanBusy.toFixed(2),
          `${x.slots.gapMs.median} / ${x.slots.gapMs.p90} / ${x.slots.gapMs.mean}`,
          x.slots.helmMeanMs,
          per(x.slots.helmCpuS, r.n),
          x.cpuS.apiserver !== undefined ? per(x.cpuS.apiserver, r.n) : null,
          x.cpuS.ctl !== undefined ? per(x.cpuS.ctl, r.n) : null,
          per(cpu(x, 'machine'), r.n),
        ]);
      }
      if (!f?.requestCounts || !b.requestCounts) continue;
      const keys = new Set([...Object.keys(b.requestCounts), ...Object.keys(f.requestCounts)]);
      const diffs = [...keys]
        .map((k) => ({ k, h: b.requestCounts![k] ?? 0, f: f.requestCounts![k] ?? 0 }))
        .filter((d) => Math.abs(d.h - d.f) >= r.n / 10)
        .sort((a, c) => Math.abs(c.h - c.f) - Math.abs(a.h - a.f))
        .slice(0, 14);
      requestRows.push([r.n, b.what, diffs.map((d) => `${d.k} ${per(d.h, r.n)} / ${per(d.f, r.n)}`).join('; ')]);
    }
  }
  const tables: Table[] = [];
  if (slotRows.length)
    tables.push({
      title: 'helm slots and CPU per release: helmcrew against the floor',
      columns: [
        'N',
        'phase',
        'side',
        'mean helm processes running',
        'slot gap ms (helm end → next start: median / p90 / mean)',
        'helm run mean ms',
        'helm CPU s / release',
        'kube-apiserver CPU s / release',
        'controller CPU s / release',
        'machine CPU s / release (all work on it)',
      ],
      notes: [
        "helm's CPU is each process's own (the counting wrapper's `time`), the API server's and the controller's are their processes' own: they hold whatever else runs on the machine; the machine's does not.",
      ],
      rows: slotRows,
    });
  if (requestRows.length)
    tables.push({
      title:
        "API requests per release that differ (helmcrew / floor; all clients, the bench's own included on helmcrew's side; rows differing by ≥ 0.1 a release)",
      columns: ['N', 'phase', 'verb resource: helmcrew / floor per release'],
      rows: requestRows,
    });
  return tables;
}
