// Small statistics and the units the reports print.

export interface Quantiles {
  n: number;
  median: number;
  p90: number;
  max: number;
}

export function quantiles(values: number[]): Quantiles {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return { n: sorted.length, median: median(sorted), p90: at(0.9), max: sorted[sorted.length - 1] ?? NaN };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The nearest-rank percentile `q` (0–1) of `values`; NaN when there are none. */
export function pct(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]! : NaN;
}

export function fmtS(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

export function fmtMiB(kb: number): string {
  return `${(kb / 1024).toFixed(0)} MiB`;
}

export function fmtRatio(x: number): string {
  return Number.isFinite(x) ? `${x.toFixed(2)}×` : 'n/a';
}

/** Whole milliseconds, or n/a. */
export function fmtMs(v: number): string {
  return Number.isFinite(v) ? `${Math.round(v)} ms` : 'n/a';
}
