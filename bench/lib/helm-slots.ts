// How busy the helm slots were over a burst, from the counting wrapper's start and end times:
// the mean number of helm processes running (the floor keeps ~c busy), and the gap between one
// helm's end and the start it made room for — with c slots fed from a queue, the (c+i)-th start
// waits for the i-th end, so that gap is the time a slot stood empty between two helm processes
// (for helmcrew: the end of one pass after helm, the queue, the next pass's reads before helm).
import type { HelmSpan } from './counting-helm.js';
import { median } from './stats.js';

export interface SlotStats {
  /** Mean helm processes running between the first start and the last end. */
  meanBusy: number;
  /** Gaps between an end and the start it made room for, in ms. */
  gapMs: { n: number; median: number; p90: number; mean: number };
  /** Mean helm run time, ms. */
  helmMeanMs: number;
  /** helm's own CPU seconds (user + system, from the counting wrapper), summed over the spans. */
  helmCpuS: number;
  /** The most release-changing helm processes (install, upgrade, rollback, uninstall, test) running at one moment: a pull takes no slot. */
  mostAtOnce: number;
}

/** Pure: slot figures of the spans that started at or after `fromS` (epoch seconds), with `concurrency` slots. */
export function slotStats(all: HelmSpan[], concurrency: number, fromS = 0): SlotStats {
  const spans = all.filter((s) => s.start >= fromS && s.end >= s.start);
  if (spans.length === 0) return { meanBusy: 0, gapMs: { n: 0, median: 0, p90: 0, mean: 0 }, helmMeanMs: 0, helmCpuS: 0, mostAtOnce: 0 };
  const first = Math.min(...spans.map((s) => s.start));
  const last = Math.max(...spans.map((s) => s.end));
  const busy = spans.reduce((sum, s) => sum + (s.end - s.start), 0);
  const starts = spans.map((s) => s.start).sort((a, b) => a - b);
  const ends = spans.map((s) => s.end).sort((a, b) => a - b);
  const gaps: number[] = [];
  for (let i = 0; i + concurrency < starts.length; i++) gaps.push(Math.max(0, (starts[i + concurrency]! - ends[i]!) * 1000));
  const sorted = [...gaps].sort((a, b) => a - b);
  const round = (x: number) => Math.round(x);
  return {
    meanBusy: last > first ? busy / (last - first) : 0,
    gapMs: {
      n: gaps.length,
      median: gaps.length ? round(median(gaps)) : 0,
      p90: round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.9))] ?? 0),
      mean: round(gaps.length ? gaps.reduce((a, b) => a + b, 0) / gaps.length : 0),
    },
    helmMeanMs: round((busy / spans.length) * 1000),
    helmCpuS: spans.reduce((sum, s) => sum + (Number.isFinite(s.cpuS) ? s.cpuS : 0), 0),
    mostAtOnce: mostAtOnce(spans.filter((s) => TAKES_SLOT.has(s.sub))),
  };
}

const TAKES_SLOT = new Set(['install', 'upgrade', 'rollback', 'uninstall', 'test']);

/** Pure: the most spans open at one moment (an end at the very time of a start counts first). */
export function mostAtOnce(spans: HelmSpan[]): number {
  const edges = spans.flatMap((s): Array<[number, number]> => [
    [s.start, 1],
    [s.end, -1],
  ]);
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let open = 0;
  let most = 0;
  for (const [, step] of edges) {
    open += step;
    most = Math.max(most, open);
  }
  return most;
}
