import { WINDOW_WARNING_ANNOTATION } from '../../api/annotations.js';
import { parseDuration } from '../../api/duration.js';
import type { Freeze, FreezeHeld } from '../../api/freeze.js';
import { CLOSED_WINDOW_NEWS_MS, checkWindow, lastClosedWindow, windowWarningDue } from '../../core/release/freeze-windows.js';

/**
 * Pure: what the channel of a windowed freeze is told, given the time: a window opens soon (the
 * `--warn` ahead of it), or one closed (with what it held, from the controller's record on the
 * Freeze's status). The sweep (slack/window-announcer.ts) claims each notice once and posts it.
 */

export type WindowNotice = { kind: 'opening' | 'closed'; start: Date; end: Date };

/** Each notice's one key: a freeze's window start is told of once per kind. */
export const noticeKey = (uid: string, notice: WindowNotice) => `${uid}:${notice.kind}:${notice.start.toISOString()}`;

function warnMs(freeze: Freeze): number {
  const text = freeze.metadata.annotations?.[WINDOW_WARNING_ANNOTATION];
  try {
    return text ? parseDuration(text) : 0;
  } catch {
    return 0;
  }
}

export function windowNotices(freeze: Freeze, now: Date): WindowNotice[] {
  if (freeze.metadata.deletionTimestamp) return [];
  const until = freeze.spec.until ? Date.parse(freeze.spec.until) : Number.NaN;
  const created = Date.parse(freeze.metadata.creationTimestamp ?? '') || 0;
  const notices: WindowNotice[] = [];
  for (const window of freeze.spec.windows ?? []) {
    if (!checkWindow(window).ok) continue;
    const durationMs = parseDuration(window.duration);
    const opening = windowWarningDue(window, warnMs(freeze), now);
    if (opening && !(opening.getTime() >= until)) notices.push({ kind: 'opening', start: opening, end: new Date(opening.getTime() + durationMs) });
    const closed = lastClosedWindow(window, now);
    // A window that closed before the freeze existed, or long ago (a bot that was down), is not news.
    if (closed && closed.end.getTime() > created && now.getTime() - closed.end.getTime() < CLOSED_WINDOW_NEWS_MS) notices.push({ kind: 'closed', ...closed });
  }
  return notices;
}

/** What the controller recorded the window starting at `start` held; empty when it held nothing (or recorded another period). */
export function heldInWindow(held: FreezeHeld | undefined, start: Date): { releases: FreezeHeld['releases']; more: number } {
  if (!held || Date.parse(held.since) !== start.getTime()) return { releases: [], more: 0 };
  return { releases: held.releases, more: held.more ?? 0 };
}
