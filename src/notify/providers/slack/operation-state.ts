/**
 * What the Slack provider remembers about one release operation in one channel: where its
 * message is, what has happened so far (the timeline the message shows), which notifications
 * were already delivered (so a redelivery changes nothing) and the last detail posted in the
 * thread (so twenty identical failures make one reply, not twenty). Pure data and decisions;
 * the reference store persists it.
 */
import { createHash } from 'node:crypto';
import type { ReleaseNotification } from '../../contract.js';

export const MAX_TIMELINE = 12;
export const MAX_DELIVERED_IDS = 40;

export interface TimelineEntry {
  event: string;
  severity: 'info' | 'error';
  /** ISO time of the first occurrence in this run of repeats. */
  at: string;
  /** Repeats of the same event in a row are folded into one entry. */
  count: number;
}

export interface OperationState {
  operationId: string;
  /** The channel as the team wrote it ("#frontend-releases"). */
  channelRef: string;
  /** The channel ID Slack answered (chat.update needs the ID). */
  channelId: string;
  /** The message's ts: its identity for chat.update and the thread. */
  ts: string;
  /** "namespace/name" of the HelmRelease. */
  release: string;
  timeline: TimelineEntry[];
  delivered: string[];
  /** Fingerprint of the last detail posted in the thread. */
  lastDetail?: string;
  /** The notification whose rendering the message shows (a retry does not edit again). */
  applied?: string;
  updatedAt: string;
  /** Grows with every save; the newer of two copies wins. */
  version: number;
}

/** The timeline with one more notification: a repeat of the last event increments its count. */
export function extendTimeline(timeline: readonly TimelineEntry[], n: Pick<ReleaseNotification, 'event' | 'severity' | 'at'>): TimelineEntry[] {
  const last = timeline.at(-1);
  if (last && last.event === n.event) return [...timeline.slice(0, -1), { ...last, count: last.count + 1 }];
  // The first entry (how the operation began) is kept; the oldest of the rest give way.
  const next = [...timeline, { event: n.event, severity: n.severity, at: n.at, count: 1 }];
  return next.length > MAX_TIMELINE ? [next[0]!, ...next.slice(next.length - MAX_TIMELINE + 1)] : next;
}

export function wasDelivered(state: OperationState | undefined, notificationId: string): boolean {
  return state?.delivered.includes(notificationId) ?? false;
}

export function markDelivered(delivered: readonly string[], notificationId: string): string[] {
  return [...delivered.filter((id) => id !== notificationId), notificationId].slice(-MAX_DELIVERED_IDS);
}

/** What a thread reply would say, reduced to a fingerprint: same event, message and error → same detail. */
export function detailFingerprint(n: Pick<ReleaseNotification, 'event' | 'message' | 'errorExcerpt'>): string {
  return createHash('sha256')
    .update(JSON.stringify([n.event, n.message, n.errorExcerpt ?? '']))
    .digest('hex')
    .slice(0, 16);
}

/** A thread reply is due when the detail differs from the last one posted. */
export function needsThreadReply(
  state: Pick<OperationState, 'lastDetail'> | undefined,
  n: Pick<ReleaseNotification, 'event' | 'message' | 'errorExcerpt'>,
): boolean {
  return state?.lastDetail !== detailFingerprint(n);
}
