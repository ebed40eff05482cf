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
  /** The cluster the notification came from (ReleaseNotification.cluster): a fleet notify's one map holds every cluster's releases. */
  cluster?: string;
  timeline: TimelineEntry[];
  delivered: string[];
  /** Fingerprint of the last detail posted in the thread. */
  lastDetail?: string;
  /** The notification whose rendering the message shows (a retry does not edit again). */
  applied?: string;
  /** The install or upgrade that continued this Resumed message (see joinsResume). */
  joined?: string;
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

/**
 * An operation's outcome or an error: what an on-call engineer must see at once, so it does not
 * queue behind the workspace's edits (the provider says it in the channel instead, and edits later).
 */
export function isOutcomeOrError(n: Pick<ReleaseNotification, 'event' | 'severity'>): boolean {
  return n.severity === 'error' || n.event.endsWith('Succeeded');
}

/** How long after a resume an install or upgrade of the same generation still counts as "the one that follows" it. */
export const RESUME_JOIN_MS = 10 * 60_000;

/**
 * The operation id of the resume an install or upgrade may follow: `uid:generation:resume` for
 * `uid:generation:install|upgrade[:attempt]` (see publish/notification.ts), else undefined.
 */
export function resumeOperationOf(operationId: string): string | undefined {
  const match = /^(.+):(\d+):(?:install|upgrade)(?::[^:]*)?$/.exec(operationId);
  return match ? `${match[1]}:${match[2]}:resume` : undefined;
}

/**
 * Whether `n` (an install or upgrade) continues the Resumed message `resumed` in place, so the
 * message shows the resume and the upgrade back to the spec it started: the message began with
 * Resumed, has not been continued by another operation, and the resume was moments ago.
 */
export function joinsResume(resumed: OperationState, n: Pick<ReleaseNotification, 'operationId' | 'at'>): boolean {
  const first = resumed.timeline[0];
  if (first?.event !== 'Resumed') return false;
  if (resumed.joined !== undefined) return resumed.joined === n.operationId;
  const since = Date.parse(n.at) - Date.parse(first.at);
  return Number.isFinite(since) && since >= 0 && since <= RESUME_JOIN_MS;
}

/** Slack's chat.update tier is one bucket for the whole workspace: every replica reserves from it. */
export const CHAT_UPDATE_BUCKET = 'slack-workspace.chat.update';
