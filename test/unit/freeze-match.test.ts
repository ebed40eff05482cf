import { describe, expect, it } from 'vitest';
import type { Freeze, FreezeWindow } from '../../src/api/freeze.js';
import type { Team } from '../../src/api/team.js';
import { describeHolding, freezeActivity, freezesHolding, nextFreezeChange, scopeCovers } from '../../src/core/release/freeze-match.js';
import { checkWindow, nextWindowStart, openWindow } from '../../src/core/release/freeze-windows.js';
import type { ReleaseFacts } from '../../src/core/release/team-releases.js';

const at = (iso: string) => new Date(iso);
const freeze = (name: string, spec: Partial<Freeze['spec']> & { scope: Freeze['spec']['scope'] }): Freeze => ({
  apiVersion: 'helmcrew.dev/v1alpha1',
  kind: 'Freeze',
  metadata: { name },
  spec: { reason: `because ${name}`, ...spec },
});
const facts = (namespace: string, name: string, over: Partial<ReleaseFacts> = {}): ReleaseFacts => ({
  namespace,
  targetNamespace: namespace,
  name,
  releaseName: name,
  chart: 'unicorn',
  labels: {},
  ...over,
});
const teams = [
  { metadata: { name: 'frontend' }, spec: { subscriptions: [{ namespaces: ['web'] }, { releases: ['api/gateway'] }] } },
  {
    metadata: { name: 'data' },
    spec: { subscriptions: [{ charts: ['postgres'], selector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['db'] }] } }] },
  },
  { metadata: { name: 'everyone' }, spec: { subscriptions: [{ severity: 'error' }] } },
] as Team[];

describe('scopeCovers: all, or every field given', () => {
  it.each([
    { name: 'all', scope: { all: true }, release: facts('x', 'a'), want: true },
    { name: 'a namespace', scope: { namespaces: ['web'] }, release: facts('web', 'a'), want: true },
    { name: 'another namespace', scope: { namespaces: ['web'] }, release: facts('api', 'a'), want: false },
    { name: 'the target namespace counts', scope: { namespaces: ['web'] }, release: facts('ops', 'a', { targetNamespace: 'web' }), want: true },
    { name: 'a chart', scope: { charts: ['unicorn'] }, release: facts('x', 'a'), want: true },
    { name: 'namespace and chart both', scope: { namespaces: ['web'], charts: ['postgres'] }, release: facts('web', 'a'), want: false },
    { name: "a Team's namespace", scope: { teams: ['frontend'] }, release: facts('web', 'a'), want: true },
    { name: "a Team's named release", scope: { teams: ['frontend'] }, release: facts('api', 'gateway'), want: true },
    { name: 'not the Team', scope: { teams: ['frontend'] }, release: facts('api', 'other'), want: false },
    { name: 'a Team by chart and selector', scope: { teams: ['data'] }, release: facts('x', 'pg', { chart: 'postgres', labels: { tier: 'db' } }), want: true },
    { name: 'a Team selector not matched', scope: { teams: ['data'] }, release: facts('x', 'pg', { chart: 'postgres' }), want: false },
    { name: 'a Team that hears everything owns nothing', scope: { teams: ['everyone'] }, release: facts('x', 'a'), want: false },
    { name: 'an unknown Team', scope: { teams: ['ghosts'] }, release: facts('web', 'a'), want: false },
    { name: 'an empty scope holds nothing', scope: {}, release: facts('web', 'a'), want: false },
  ])('$name', ({ scope, release, want }) => {
    expect(scopeCovers(scope, release, teams)).toBe(want);
  });
});

describe('freezeActivity: until and windows', () => {
  const now = at('2026-11-25T10:00:00Z');
  it.each([
    { name: 'no end: active, never changes by itself', spec: {}, want: { active: true } },
    { name: 'until ahead: active until then', spec: { until: '2026-11-25T12:00:00Z' }, want: { active: true, nextChange: at('2026-11-25T12:00:00Z') } },
    { name: 'until passed: over', spec: { until: '2026-11-25T09:59:59Z' }, want: { active: false } },
    {
      name: 'inside a window: active until it closes',
      spec: { windows: [{ schedule: '0 9 * * *', duration: '2h' }] },
      want: { active: true, nextChange: at('2026-11-25T11:00:00Z') },
    },
    {
      name: 'outside: waits for the next window',
      spec: { windows: [{ schedule: '0 12 * * *', duration: '1h' }] },
      want: { active: false, nextChange: at('2026-11-25T12:00:00Z') },
    },
    {
      name: 'the next window is after until: no change by itself',
      spec: { until: '2026-11-25T11:00:00Z', windows: [{ schedule: '0 12 * * *', duration: '1h' }] },
      want: { active: false },
    },
    {
      name: 'a window that cannot be computed holds (fails closed) and says why',
      spec: { windows: [{ schedule: '0 99 * * *', duration: '1h' }] },
      want: { active: true, problem: expect.stringMatching(/^window "0 99 \* \* \*" \(UTC\)/) as unknown },
    },
    {
      name: 'an unknown time zone too',
      spec: { windows: [{ schedule: '0 9 * * *', duration: '1h', timeZone: 'Mars/Olympus' }] },
      want: { active: true, problem: expect.stringMatching(/"Mars\/Olympus" is not an IANA time zone/) as unknown },
    },
  ])('$name', ({ spec, want }) => {
    expect(freezeActivity(freeze('f', { scope: { all: true }, ...spec }), now)).toEqual(want);
  });
  it('a freeze being deleted holds nothing', () => {
    const deleting = freeze('f', { scope: { all: true } });
    deleting.metadata.deletionTimestamp = '2026-11-25T09:00:00Z';
    expect(freezeActivity(deleting, now)).toEqual({ active: false });
  });
  it('overlapping occurrences chain into one window', () => {
    expect(openWindow({ schedule: '*/30 * * * *', duration: '45m' }, at('2026-11-25T10:10:00Z'))).toEqual({
      start: at('2026-11-25T10:00:00Z'),
      end: expect.any(Date) as unknown,
    });
  });
});

describe('recurring windows across daylight-saving changes (Europe/Berlin)', () => {
  // Every day 09:00 to 10:00 Berlin wall-clock time: 07:00Z in summer (CEST, +2), 08:00Z in winter (CET, +1).
  const daily: FreezeWindow = { schedule: '0 9 * * *', duration: '1h', timeZone: 'Europe/Berlin' };
  it('the window is computed valid', () => expect(checkWindow(daily)).toEqual({ ok: true }));
  it.each([
    { name: 'autumn, the day before (CEST)', now: '2026-10-24T07:30:00Z', want: { start: '2026-10-24T07:00:00Z', end: '2026-10-24T08:00:00Z' } },
    {
      name: 'autumn, the day after (CET): an hour later in UTC',
      now: '2026-10-26T08:30:00Z',
      want: { start: '2026-10-26T08:00:00Z', end: '2026-10-26T09:00:00Z' },
    },
    { name: 'autumn, the day after, at the summer hour: closed', now: '2026-10-26T07:30:00Z', want: undefined },
    { name: 'spring, the day before (CET)', now: '2026-03-28T08:30:00Z', want: { start: '2026-03-28T08:00:00Z', end: '2026-03-28T09:00:00Z' } },
    {
      name: 'spring, the day after (CEST): an hour earlier in UTC',
      now: '2026-03-30T07:30:00Z',
      want: { start: '2026-03-30T07:00:00Z', end: '2026-03-30T08:00:00Z' },
    },
  ])('$name', ({ now, want }) => {
    const open = openWindow(daily, at(now));
    expect(open && { start: open.start.toISOString().replace('.000', ''), end: open.end.toISOString().replace('.000', '') }).toEqual(want);
  });
  it('the next start across the change is 09:00 local, not 24h after the last', () => {
    expect(nextWindowStart(daily, at('2026-10-24T12:00:00Z'))?.toISOString()).toBe('2026-10-25T08:00:00.000Z');
    expect(nextFreezeChange([freeze('weekly', { scope: { all: true }, windows: [daily] })], at('2026-10-25T12:00:00Z'))?.toISOString()).toBe(
      '2026-10-26T08:00:00.000Z',
    );
  });
  it('a weekend freeze (Fri 18:00 for 62h) over the autumn change ends at 07:00 local: a duration is elapsed time', () => {
    const weekend: FreezeWindow = { schedule: '0 18 * * 5', duration: '62h', timeZone: 'Europe/Berlin' };
    const open = openWindow(weekend, at('2026-10-25T12:00:00Z'));
    expect(open?.start.toISOString()).toBe('2026-10-23T16:00:00.000Z');
    expect(open?.end.toISOString()).toBe('2026-10-26T06:00:00.000Z');
  });
});

describe('freezesHolding: overlapping freezes', () => {
  const now = at('2026-11-25T10:00:00Z');
  const freezes = [
    freeze('web-1', { scope: { namespaces: ['web'] }, setBy: 'slack:U1' }),
    freeze('team-frontend-2', { scope: { teams: ['frontend'] }, until: '2026-11-25T12:00:00Z' }),
    freeze('old', { scope: { all: true }, until: '2026-11-25T09:00:00Z' }),
  ];
  it('every active freeze that covers it, by name', () => {
    const holding = freezesHolding(facts('web', 'a'), freezes, teams, now);
    expect(holding.map((f) => f.name)).toEqual(['team-frontend-2', 'web-1']);
    expect(describeHolding(holding)).toBe(
      'freeze team-frontend-2 (because team-frontend-2, until 2026-11-25T12:00:00Z); freeze web-1 (because web-1, set by slack:U1)',
    );
  });
  it('lifting one keeps it held by the other; lifting both frees it', () => {
    expect(freezesHolding(facts('web', 'a'), freezes.slice(1), teams, now).map((f) => f.name)).toEqual(['team-frontend-2']);
    expect(freezesHolding(facts('web', 'a'), freezes.slice(2), teams, now)).toEqual([]);
  });
  it('the earliest moment any of them changes by itself', () => {
    expect(nextFreezeChange(freezes, now)).toEqual(at('2026-11-25T12:00:00Z'));
  });
});
