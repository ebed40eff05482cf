import { describe, expect, it } from 'vitest';
import { benchMarker, countCalls, everyEventFloor, firstCarried, limitFloor } from '../../bench/lib/slack-calls.js';
import type { RecordedCall } from '../../src/dev/fake-slack/index.js';

const ID1 = '00abcdefg-0001-0a1b2c3d';
const ID2 = '00abcdefg-0002-0a1b2c3e';
const call = (method: string, at: number, params: Record<string, unknown>, status = 200, ok = true, error?: string): RecordedCall => ({
  method,
  params,
  status,
  ok,
  error,
  at,
});
const body = (id: string) => ({
  channel: 'C1',
  text: 'Upgraded',
  attachments: JSON.stringify([{ blocks: [{ text: { text: `UpgradeSucceeded of ns/app ${benchMarker(id)}` } }] }]),
});

describe('bench: which Slack call first carried a notification', () => {
  it.each([
    ['a top-level post carries it', [call('chat.postMessage', 10, body(ID1))], { [ID1]: 10 }],
    ['the first of a post and a later update', [call('chat.postMessage', 10, body(ID1)), call('chat.update', 20, { ...body(ID1), ts: '1.1' })], { [ID1]: 10 }],
    ['a thread reply does not count', [call('chat.postMessage', 10, { ...body(ID1), thread_ts: '1.1' })], {}],
    [
      'a thread reply also sent to the channel does',
      [call('chat.postMessage', 10, { ...body(ID1), thread_ts: '1.1', reply_broadcast: 'true' })],
      { [ID1]: 10 },
    ],
    ['a refused call (429) does not count', [call('chat.update', 10, body(ID2), 429, false, 'ratelimited'), call('chat.update', 30, body(ID2))], { [ID2]: 30 }],
    [
      'an update carries the new state',
      [call('chat.postMessage', 10, body(ID1)), call('chat.update', 25, { ...body(ID2), ts: '1.1' })],
      { [ID1]: 10, [ID2]: 25 },
    ],
  ])('%s', (_, calls, expected) => {
    expect(Object.fromEntries(firstCarried(calls))).toEqual(expected);
  });

  it('counts posts, updates, thread replies, 429s by method and other errors', () => {
    const counts = countCalls([
      call('chat.postMessage', 1, body(ID1)),
      call('chat.postMessage', 2, { ...body(ID1), thread_ts: '1.1' }),
      call('chat.postMessage', 2, { ...body(ID1), thread_ts: '1.1', reply_broadcast: 'true' }),
      call('chat.postMessage', 3, { ...body(ID1), thread_ts: '1.1' }, 429, false, 'ratelimited'),
      call('chat.update', 4, body(ID2)),
      call('chat.update', 5, body(ID2), 429, false, 'ratelimited'),
      call('chat.update', 6, body(ID2), 200, false, 'message_not_found'),
    ]);
    expect(counts).toEqual({
      posts: 1,
      updates: 1,
      replies: 2,
      broadcasts: 1,
      rateLimited: { 'chat.postMessage': 1, 'chat.update': 1 },
      otherErrors: { 'chat.update message_not_found': 1 },
    });
  });
});

describe('bench: the floor a per-channel rate alone sets', () => {
  it.each([
    [
      'spread out, no wait',
      [
        { channel: 0, atMs: 0 },
        { channel: 0, atMs: 1500 },
      ],
      1,
      [0, 0],
    ],
    [
      'three at once on one channel queue 0, 1, 2 s',
      [
        { channel: 0, atMs: 0 },
        { channel: 0, atMs: 0 },
        { channel: 0, atMs: 0 },
      ],
      1,
      [0, 1000, 2000],
    ],
    [
      'other channels do not wait',
      [
        { channel: 0, atMs: 0 },
        { channel: 1, atMs: 0 },
        { channel: 2, atMs: 0 },
      ],
      1,
      [0, 0, 0],
    ],
    [
      'served in the order they happened',
      [
        { channel: 0, atMs: 500 },
        { channel: 0, atMs: 0 },
      ],
      1,
      [0, 500],
    ],
    [
      'a faster rate shortens the queue',
      [
        { channel: 0, atMs: 0 },
        { channel: 0, atMs: 0 },
      ],
      4,
      [0, 250],
    ],
  ])('%s', (_, finals, perSecond, expected) => {
    expect(limitFloor(finals, perSecond)).toEqual(expected);
  });

  it.each([
    ['a burst of 3 takes three at once, the fourth waits a second', 4, 1, 3, [0, 0, 0, 1000]],
    ['Tier 3 (50/min, burst 50): the 51st waits 1.2 s, the 52nd 2.4 s', 52, 50 / 60, 50, [...Array.from({ length: 50 }, () => 0), 1200, 2400]],
  ])('%s', (_, count, perSecond, burst, expected) => {
    const finals = Array.from({ length: count }, () => ({ channel: 0, atMs: 0 }));
    expect(limitFloor(finals, perSecond, burst).map((v) => Math.round(v))).toEqual(expected);
  });

  it('thread replies counted: each outcome takes two messages, seen at its first', () => {
    const together = Array.from({ length: 3 }, () => ({ channel: 0, atMs: 0 }));
    expect(limitFloor(together, 1, 1, 2)).toEqual([0, 2000, 4000]);
    // Spread out enough, nobody waits; 1.5 s apart, the reply's second is still taken.
    expect(
      limitFloor(
        [
          { channel: 0, atMs: 0 },
          { channel: 0, atMs: 2000 },
        ],
        1,
        1,
        2,
      ),
    ).toEqual([0, 0]);
    expect(
      limitFloor(
        [
          { channel: 0, atMs: 0 },
          { channel: 0, atMs: 1500 },
        ],
        1,
        1,
        2,
      ),
    ).toEqual([0, 500]);
  });
});

describe('bench: the floor when starts are said too', () => {
  it.each([
    [
      'an outcome 1 s after its start waits for the start’s reply',
      [
        { channel: 0, atMs: 0, final: false },
        { channel: 0, atMs: 1000, final: true },
      ],
      [1000],
    ],
    [
      '3 s after, the channel has room again',
      [
        { channel: 0, atMs: 0, final: false },
        { channel: 0, atMs: 3000, final: true },
      ],
      [0],
    ],
    [
      'another channel’s start does not hold it',
      [
        { channel: 1, atMs: 0, final: false },
        { channel: 0, atMs: 1000, final: true },
      ],
      [0],
    ],
    [
      'only outcomes are returned, in the order they happened',
      [
        { channel: 0, atMs: 2500, final: true },
        { channel: 0, atMs: 0, final: false },
        { channel: 1, atMs: 100, final: true },
      ],
      [0, 0],
    ],
  ])('%s', (_, events, expected) => {
    expect(everyEventFloor(events)).toEqual(expected);
  });
});
