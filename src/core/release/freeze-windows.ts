import { CronExpressionParser } from 'cron-parser';
import { parseDuration } from '../../api/duration.js';
import type { FreezeWindow } from '../../api/freeze.js';

/**
 * Recurring freeze windows: a cron schedule of window starts, each open for `duration`, in an
 * IANA time zone (cron-parser computes the starts in that zone, daylight-saving changes
 * included). Pure but for the time passed in.
 */

/** A window that cannot be computed (bad cron, unknown zone): said in words, never thrown at a caller. */
export type WindowCheck = { ok: true } | { ok: false; message: string };

/** Enough occurrences to chain windows that overlap (a schedule every minute with a 1h duration). */
const MAX_CHAIN = 1000;

export function checkWindow(window: FreezeWindow): WindowCheck {
  try {
    validTimeZone(window.timeZone);
    parseDuration(window.duration);
    CronExpressionParser.parse(window.schedule, { currentDate: new Date(0), tz: window.timeZone ?? 'UTC', strict: false });
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
  return CronExpressionParser.parse(window.schedule, { currentDate: at, tz: window.timeZone ?? 'UTC', strict: false });
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
