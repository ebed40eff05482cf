import { createRequire } from 'node:module';
import type { CronExpressionParser as CronParser } from 'cron-parser';
import { parseDuration } from '../../api/duration.js';
import type { FreezeWindow } from '../../api/freeze.js';

/**
 * Recurring freeze windows: a cron schedule of window starts, each open for `duration`, in an
 * IANA time zone (cron-parser computes the starts in that zone, daylight-saving changes
 * included). Pure but for the time passed in.
 */

/** A window that cannot be computed (bad cron, unknown zone): said in words, never thrown at a caller. */
export type WindowCheck = { ok: true } | { ok: false; message: string };

// Loaded on the first window computed, not with the module: most fleets have no windows, and
// cron-parser with luxon is ~1 MiB of the web part's heap (docs/performance.md).
let parser: typeof CronParser | undefined;
const cronParser = (): typeof CronParser => (parser ??= (createRequire(import.meta.url)('cron-parser') as typeof import('cron-parser')).CronExpressionParser);

/** Enough occurrences to chain windows that overlap (a schedule every minute with a 1h duration). */
const MAX_CHAIN = 1000;

export function checkWindow(window: FreezeWindow): WindowCheck {
  try {
    validTimeZone(window.timeZone);
    parseDuration(window.duration);
    cronParser().parse(window.schedule, { currentDate: new Date(0), tz: window.timeZone ?? 'UTC', strict: false });
    return { ok: true };
  } catch (error) {
    return { ok: false, message: `window "${window.schedule}" (${window.timeZone ?? 'UTC'}): ${(error as Error).message}` };
  }
}

function validTimeZone(zone: string | undefined): void {
  if (zone === undefined) return;
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
  } catch {
    throw new Error(`"${zone}" is not an IANA time zone (like Europe/Berlin)`);
  }
}

function starts(window: FreezeWindow, at: Date) {
  return cronParser().parse(window.schedule, { currentDate: at, tz: window.timeZone ?? 'UTC', strict: false });
}

/** The latest window start at or before `at`, or undefined. */
function lastStart(window: FreezeWindow, at: Date): Date | undefined {
  const schedule = starts(window, new Date(at.getTime() + 1));
  return schedule.hasPrev() ? schedule.prev().toDate() : undefined;
}

/** The open window around `at` as [start, end), chained through overlapping occurrences; undefined when closed. */
export function openWindow(window: FreezeWindow, at: Date): { start: Date; end: Date } | undefined {
  const durationMs = parseDuration(window.duration);
  const start = lastStart(window, at);
  if (!start || at.getTime() >= start.getTime() + durationMs) return undefined;
  let end = start.getTime() + durationMs;
  const schedule = starts(window, start);
  for (let i = 0; i < MAX_CHAIN && schedule.hasNext(); i++) {
    const next = schedule.next().toDate().getTime();
    if (next > end) break;
    end = Math.max(end, next + durationMs);
  }
  return { start, end: new Date(end) };
}

/** The next window start after `at`, or undefined when the schedule has none. */
export function nextWindowStart(window: FreezeWindow, at: Date): Date | undefined {
  const schedule = starts(window, at);
  return schedule.hasNext() ? schedule.next().toDate() : undefined;
}

/** How far back a closed window is still news: a bot down longer than this does not report it late. */
export const CLOSED_WINDOW_NEWS_MS = 3_600_000;

/**
 * The most recent window that has closed by `now` (its end at or before `now`), as [start, end);
 * undefined when none has. A window still open now, chained or not, is not closed.
 */
export function lastClosedWindow(window: FreezeWindow, now: Date): { start: Date; end: Date } | undefined {
  const schedule = starts(window, new Date(now.getTime() + 1));
  // A few starts back: an open window's own start, then the one before it.
  for (let i = 0; i < 3 && schedule.hasPrev(); i++) {
    const start = schedule.prev().toDate();
    const open = openWindow(window, start);
    if (open && open.end.getTime() <= now.getTime()) return { start, end: open.end };
  }
  return undefined;
}

/** The start a warning `warnMs` ahead is due for at `now` (the next start is within `warnMs`, and no window is open); undefined otherwise. */
export function windowWarningDue(window: FreezeWindow, warnMs: number, now: Date): Date | undefined {
  if (warnMs <= 0 || openWindow(window, now)) return undefined;
  const next = nextWindowStart(window, now);
  return next && next.getTime() - now.getTime() <= warnMs ? next : undefined;
}

/** The start of the open window around `now` among `windows` (the earliest, when several are open); undefined when none is open. */
export function openWindowStart(windows: readonly FreezeWindow[], now: Date): Date | undefined {
  let earliest: number | undefined;
  for (const window of windows) {
    if (!checkWindow(window).ok) continue;
    const open = openWindow(window, now);
    if (open && (earliest === undefined || open.start.getTime() < earliest)) earliest = open.start.getTime();
  }
  return earliest === undefined ? undefined : new Date(earliest);
}
