/** Go-style durations ("1h30m", "90s", "1.5h") as the API schema's DURATION_PATTERN admits them. */

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * Parsed texts, kept: every release's interval and bounds are parsed at each resync tick, and a fleet
 * names only a handful of distinct durations (7 % of the controller's CPU at rest, profiled). Bounded,
 * so varied input cannot grow it.
 */
const parsed = new Map<string, number>();
const PARSED_KEPT = 256;

export function parseDuration(text: string): number {
  const known = parsed.get(text);
  if (known !== undefined) return known;
  const ms = parseDurationText(text);
  if (parsed.size >= PARSED_KEPT) parsed.clear();
  parsed.set(text, ms);
  return ms;
}

function parseDurationText(text: string): number {
  const parts = [...text.matchAll(/([0-9]+(?:\.[0-9]+)?)(ms|s|m|h)/g)];
  const consumed = parts.map((p) => p[0]).join('');
  if (parts.length === 0 || consumed !== text) throw new Error(`"${text}" is not a duration like 30s, 5m or 1h30m`);
  return parts.reduce((total, p) => total + Number(p[1]) * (UNIT_MS[p[2]!] ?? 0), 0);
}

/** Bounds the schema enforces (CEL) and the code applies again to whatever gets through. */
export const DURATION_BOUNDS = {
  /** interval: 0s would check in a tight loop. */
  minInterval: '1s',
  maxInterval: '168h',
  minTimeout: '1s',
  /** timeout: a helm operation longer than a day is a mistake, and far below Node's timer limit. */
  maxTimeout: '24h',
} as const;

/** Node's timers hold a signed 32-bit ms count; anything larger fires after 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Pure: a delay safe to hand to setTimeout (and to execa's timeout), at least 1 ms. */
export function clampTimerMs(ms: number): number {
  if (!Number.isFinite(ms)) return MAX_TIMER_MS;
  return Math.min(MAX_TIMER_MS, Math.max(1, Math.round(ms)));
}

/** Pure: `ms` kept within the named bounds (both Go-style durations). */
export function clampDuration(ms: number, min: string, max: string): number {
  return Math.min(parseDuration(max), Math.max(parseDuration(min), ms));
}
