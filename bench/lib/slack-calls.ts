// What the Slack benchmark reads from the fake Slack's record of calls: which call first carried a
// notification's state (by a marker in its message), how many calls of each kind and how many
// 429s, and the floor that a per-channel message rate alone sets. Pure, table-tested.
import type { RecordedCall } from '../../src/dev/fake-slack/index.js';

/** The marker the bench appends to each notification's message; the rendered message keeps it. */
export const benchMarker = (id: string): string => `[bench:${id}]`;

export interface CallCounts {
  posts: number;
  updates: number;
  replies: number;
  /** Thread replies also sent to the channel (`reply_broadcast`), counted in `replies` too. */
  broadcasts: number;
  rateLimited: Record<string, number>;
  otherErrors: Record<string, number>;
}

const MARKER = /\[bench:([0-9a-z]{9}-[0-9a-z]{4}-[0-9a-f]{8})\]/g;
const isBroadcast = (c: RecordedCall) => c.params.reply_broadcast === true || c.params.reply_broadcast === 'true';
/** A call whose message is seen in the channel: a post, an edit, or a thread reply also sent to the channel. */
const isTopLevel = (c: RecordedCall) => c.method === 'chat.update' || (c.method === 'chat.postMessage' && (!c.params.thread_ts || isBroadcast(c)));

/** First arrival of each marker in an accepted call seen in the channel: a top-level post, an update or a broadcast reply. */
export function firstCarried(calls: RecordedCall[]): Map<string, number> {
  const first = new Map<string, number>();
  for (const call of calls) {
    if (!call.ok || !isTopLevel(call)) continue;
    for (const match of JSON.stringify(call.params).matchAll(MARKER)) if (!first.has(match[1]!)) first.set(match[1]!, call.at);
  }
  return first;
}

export function countCalls(calls: RecordedCall[]): CallCounts {
  const counts: CallCounts = { posts: 0, updates: 0, replies: 0, broadcasts: 0, rateLimited: {}, otherErrors: {} };
  for (const c of calls) {
    if (c.status === 429) counts.rateLimited[c.method] = (counts.rateLimited[c.method] ?? 0) + 1;
    else if (!c.ok) counts.otherErrors[`${c.method} ${c.error}`] = (counts.otherErrors[`${c.method} ${c.error}`] ?? 0) + 1;
    else if (c.method === 'chat.update') counts.updates++;
    else if (c.method === 'chat.postMessage') {
      if (c.params.thread_ts) counts.replies++;
      else counts.posts++;
      if (c.params.thread_ts && isBroadcast(c)) counts.broadcasts++;
    }
  }
  return counts;
}

/**
 * The floor a rate limit alone sets: each operation's outcome needs `calls` calls from a token
 * bucket per key (a channel's messages; one key for a workspace-wide method like chat.update) that
 * holds `burst` calls and refills at `perSecond`, served in the order the outcomes happened. The
 * outcome is seen with its first call; the others (its thread reply: `calls` = 2) follow and hold
 * the next outcome back. With `calls` = 1 thread replies are not counted.
 */
export function limitFloor(finals: Array<{ channel: number; atMs: number }>, perSecond = 1, burst = 1, calls = 1): number[] {
  const buckets = new Map<number, { tokens: number; at: number }>();
  return [...finals]
    .sort((a, b) => a.atMs - b.atMs)
    .map(({ channel, atMs }) => {
      const bucket = buckets.get(channel) ?? { tokens: burst, at: atMs };
      let start = Math.max(atMs, bucket.at);
      let tokens = Math.min(burst, bucket.tokens + ((start - bucket.at) / 1000) * perSecond);
      if (tokens < 1) {
        start += ((1 - tokens) / perSecond) * 1000;
        tokens = 1;
      }
      buckets.set(channel, { tokens: tokens - calls, at: start });
      return start - atMs;
    });
}

/**
 * The floor when every event of an operation is said in its channel — the start as well as the
 * outcome, each a message and its thread reply (two of the channel's calls) — in the order they
 * happened: the latencies of the outcomes (`final`). A start that went shortly before its outcome
 * holds the channel's next second, which the outcome-only floor leaves out.
 */
export function everyEventFloor(events: Array<{ channel: number; atMs: number; final: boolean }>, perSecond = 1, burst = 1): number[] {
  const inOrder = [...events].sort((a, b) => a.atMs - b.atMs);
  const latencies = limitFloor(inOrder, perSecond, burst, 2);
  return inOrder.flatMap((event, i) => (event.final ? [latencies[i]!] : []));
}
