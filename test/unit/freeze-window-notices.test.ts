import { describe, expect, it } from 'vitest';
import type { Freeze } from '../../src/api/freeze.js';
import { heldInWindow, windowNotices } from '../../src/session/plan/window-notices.js';
import { windowMessage } from '../../src/bot/slack/window-announcer.js';
import { heldPeriodStart, withHeldRelease } from '../../src/controller/status/freeze-held.js';
import { lastClosedWindow, openWindowStart, windowWarningDue } from '../../src/core/release/freeze-windows.js';

/** Issue 33: maintenance windows from chat — the pure decisions, time passed in. */

const at = (iso: string) => new Date(iso);
// Fridays 18:00 UTC for 64h: 2026-11-27T18:00Z – 2026-11-30T10:00Z.
const weekend = { schedule: '0 18 * * FRI', duration: '64h' };

describe('window times', () => {
  it.each([
    { name: 'before the first window', now: '2026-11-27T17:00:00Z', want: '2026-11-20T18:00:00.000Z' },
    { name: 'while one is open: the one before', now: '2026-11-28T10:00:00Z', want: '2026-11-20T18:00:00.000Z' },
    { name: 'right at its end', now: '2026-11-30T10:00:00Z', want: '2026-11-27T18:00:00.000Z' },
  ])('the last closed window, $name', ({ now, want }) => expect(lastClosedWindow(weekend, at(now))?.start.toISOString()).toBe(want));

  it.each([
    { name: '31m ahead: not yet', now: '2026-11-27T17:29:00Z', want: undefined },
    { name: '30m ahead', now: '2026-11-27T17:30:00Z', want: '2026-11-27T18:00:00.000Z' },
    { name: '1m ahead', now: '2026-11-27T17:59:00Z', want: '2026-11-27T18:00:00.000Z' },
    { name: 'open: no warning', now: '2026-11-27T18:00:00Z', want: undefined },
  ])('a 30m warning, $name', ({ now, want }) => expect(windowWarningDue(weekend, 1_800_000, at(now))?.toISOString()).toBe(want));

  it('the open window start, none when closed, and a bad schedule is skipped', () => {
    expect(openWindowStart([weekend, { schedule: 'nope', duration: '1h' }], at('2026-11-29T00:00:00Z'))?.toISOString()).toBe('2026-11-27T18:00:00.000Z');
    expect(openWindowStart([weekend], at('2026-11-26T00:00:00Z'))).toBeUndefined();
  });
});

const freeze = (over: Partial<Freeze['metadata']> = {}, status?: Freeze['status']): Freeze => ({
  apiVersion: 'helmcrew.dev/v1alpha1',
  kind: 'Freeze',
  metadata: { name: 'prod-1', uid: 'u1', creationTimestamp: '2026-11-26T12:00:00Z', annotations: { 'helmcrew.dev/window-warning': '30m' }, ...over },
  spec: { scope: { namespaces: ['prod'] }, reason: 'weekend', windows: [weekend] },
  ...(status ? { status } : {}),
});

describe("the controller's record of what a freeze held", () => {
  const entry = (release: string) => ({ release, action: 'upgrade', at: '2026-11-28T00:00:00Z' });
  it('the period is the open window, or the creation of a freeze without windows', () => {
    expect(heldPeriodStart(freeze(), at('2026-11-28T00:00:00Z'))).toBe('2026-11-27T18:00:00.000Z');
    expect(heldPeriodStart({ ...freeze(), spec: { scope: { all: true }, reason: 'x' } }, at('2026-11-28T00:00:00Z'))).toBe('2026-11-26T12:00:00.000Z');
  });
  it.each([
    { name: 'the first hold', held: undefined, want: { since: 'W2', releases: [entry('prod/a')] } },
    { name: 'another release', held: { since: 'W2', releases: [entry('prod/b')] }, want: { since: 'W2', releases: [entry('prod/b'), entry('prod/a')] } },
    { name: 'listed already: nothing to write', held: { since: 'W2', releases: [entry('prod/a')] }, want: undefined },
    { name: 'a new window starts the list again', held: { since: 'W1', releases: [entry('prod/b')] }, want: { since: 'W2', releases: [entry('prod/a')] } },
    {
      name: 'full: counted, not listed',
      held: { since: 'W2', releases: Array.from({ length: 50 }, (_, i) => entry(`prod/r${i}`)) },
      want: expect.objectContaining({ more: 1 }),
    },
  ])('$name', ({ held, want }) => expect(withHeldRelease(held, 'W2', entry('prod/a'))).toEqual(want));
});

describe('what the channel is told', () => {
  it.each([
    { name: 'long before', now: '2026-11-27T12:00:00Z', want: [] },
    {
      name: '30m before it opens',
      now: '2026-11-27T17:30:00Z',
      want: [{ kind: 'opening', start: '2026-11-27T18:00:00.000Z', end: '2026-11-30T10:00:00.000Z' }],
    },
    { name: 'while open', now: '2026-11-28T12:00:00Z', want: [] },
    { name: 'just closed', now: '2026-11-30T10:00:05Z', want: [{ kind: 'closed', start: '2026-11-27T18:00:00.000Z', end: '2026-11-30T10:00:00.000Z' }] },
    { name: 'closed long ago: not news', now: '2026-11-30T12:00:00Z', want: [] },
  ])('$name', ({ now, want }) => {
    const notices = windowNotices(freeze(), at(now)).map((n) => ({ kind: n.kind, start: n.start.toISOString(), end: n.end.toISOString() }));
    expect(notices).toEqual(want);
  });

  it('no warning without --warn; nothing for a window that closed before the freeze existed', () => {
    expect(windowNotices(freeze({ annotations: {} }), at('2026-11-27T17:30:00Z'))).toEqual([]);
    expect(windowNotices(freeze({ creationTimestamp: '2026-11-30T10:00:01Z' }), at('2026-11-30T10:00:05Z'))).toEqual([]);
  });

  it('the close names what the controller recorded for that window, and only for it', () => {
    const held = { since: '2026-11-27T18:00:00.000Z', releases: [{ release: 'prod/unicorn', action: 'upgrade', at: 't' }], more: 2 };
    const closed = { kind: 'closed' as const, start: at('2026-11-27T18:00:00Z'), end: at('2026-11-30T10:00:00Z') };
    expect(windowMessage(freeze({}, { held }), closed).text).toBe(
      ':unlock: Freeze prod-1 (weekend): the window 2026-11-27T18:00:00.000Z – 2026-11-30T10:00:00.000Z closed. It held prod/unicorn (upgrade) and 2 more; they go on now.',
    );
    expect(heldInWindow(held, at('2026-11-20T18:00:00Z'))).toEqual({ releases: [], more: 0 });
    expect(windowMessage(freeze(), closed).text).toMatch(/closed\. It held no release\.$/);
    expect(windowMessage(freeze(), { ...closed, kind: 'opening' }).text).toMatch(
      /^:lock: Freeze prod-1 \(weekend\) opens a window at 2026-11-27T18:00:00.000Z .*namespace prod/,
    );
  });
});
