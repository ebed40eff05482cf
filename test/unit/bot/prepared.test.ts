import { describe, expect, it } from 'vitest';
import { FREEZE_ANNOTATION, ROLLBACK_REQUEST_ANNOTATION, SUSPENSION_ANNOTATION } from '../../../src/api/annotations.js';
import type { HelmRelease } from '../../../src/api/helmrelease.js';
import { authorizeAction, isRequester } from '../../../src/bot/authz/authorize-action.js';
import type { TeamPolicy } from '../../../src/bot/authz/policy-types.js';
import { authzTargets, namespaceAuthzTarget, releaseAuthzTarget } from '../../../src/bot/authz/targets.js';
import { intentPatch } from '../../../src/bot/plan/intents.js';
import { prepareFreeze, prepareReleaseCommand, stillAsPlanned, type PreparedAction } from '../../../src/bot/plan/prepared.js';
import { summarizeHistory } from '../../../src/core/helm-storage/release-storage.js';

const hr = (namespace: string, name: string, over: { suspend?: boolean; generation?: number; chart?: string } = {}): HelmRelease => ({
  apiVersion: 'helmcrew.dev/v1alpha1',
  kind: 'HelmRelease',
  metadata: { name, namespace, generation: over.generation ?? 1 },
  spec: { chart: { repository: 'https://x.test', name: over.chart ?? 'unicorn', version: '1.0.0' }, ...(over.suspend ? { suspend: true } : {}) },
});
const alice = { id: 'slack:UALICE', channel: 'C1' };
const now = new Date('2026-01-02T03:04:05Z');

describe('prepareFreeze', () => {
  const world = [hr('web', 'a', { generation: 3 }), hr('web', 'held', { suspend: true }), hr('api', 'b')];
  it('a freeze targets the running releases in scope, at the generation read, and carries its id', () => {
    const action = prepareFreeze({ verb: 'freeze', scope: { kind: 'namespace', namespace: 'web' }, reason: 'incident' }, world, 'fz-1');
    expect(action.targets).toEqual([{ namespace: 'web', name: 'a', chart: 'unicorn', generation: 3 }]);
    expect(action.freezeId).toBe('fz-1');
    expect(action.plan.title).toBe('freeze namespace web');
  });
  it('an unfreeze carries no freeze id', () => {
    const action = prepareFreeze({ verb: 'unfreeze', scope: { kind: 'all' } }, world, 'fz-2');
    expect(action.freezeId).toBeUndefined();
    expect(action.plan.title).toBe('unfreeze every namespace');
    expect(action.plan.doable).toBe(false);
  });
});

describe('stillAsPlanned', () => {
  const target = { namespace: 'web', name: 'a', chart: 'unicorn', generation: 3 };
  it.each([
    { name: 'same generation: go ahead', current: hr('web', 'a', { generation: 3 }), want: { ok: true } },
    { name: 'gone', current: undefined, want: { ok: false, line: 'web/a: gone since the plan; nothing done' } },
    {
      name: 'changed',
      current: hr('web', 'a', { generation: 4 }),
      want: { ok: false, line: 'web/a: changed since the plan (generation 3 → 4); nothing done, ask again' },
    },
  ])('$name', ({ current, want }) => {
    expect(stillAsPlanned(target, current)).toMatchObject(want);
  });
});

describe('intentPatch: the patch for each confirmed verb', () => {
  const release = hr('web', 'a');
  const history = summarizeHistory([]);
  const action = (command: Parameters<typeof prepareReleaseCommand>[0]): PreparedAction => prepareReleaseCommand(command, release, history);
  it('suspend', () => {
    const patch = intentPatch(action({ verb: 'suspend', release: { name: 'a' }, reason: 'db down' }), alice, now, undefined);
    expect(patch.spec).toEqual({ suspend: true });
    expect(JSON.parse(patch.metadata!.annotations![SUSPENSION_ANNOTATION]!)).toMatchObject({ by: 'slack:UALICE', reason: 'db down' });
  });
  it('resume and unfreeze resume', () => {
    expect(intentPatch(action({ verb: 'resume', release: { name: 'a' } }), alice, now, undefined).spec).toEqual({ suspend: false });
    const unfreeze = prepareFreeze({ verb: 'unfreeze', scope: { kind: 'all' } }, [], 'unused');
    expect(intentPatch(unfreeze, alice, now, undefined).spec).toEqual({ suspend: false });
  });
  it('upgrade sets the chart version only', () => {
    expect(intentPatch(action({ verb: 'upgrade', release: { name: 'a' }, version: '2.0.0' }), alice, now, undefined)).toEqual({
      spec: { chart: { version: '2.0.0' } },
    });
  });
  it('rollback carries the request id', () => {
    const patch = intentPatch(action({ verb: 'rollback', release: { name: 'a' }, revision: 1 }), alice, now, 'rb-1');
    expect(patch.metadata!.annotations![ROLLBACK_REQUEST_ANNOTATION]).toBe('rb-1');
  });
  it('freeze marks with the action freeze id', () => {
    const freeze = prepareFreeze({ verb: 'freeze', scope: { kind: 'all' }, reason: 'incident' }, [release], 'fz-9');
    expect(intentPatch(freeze, alice, now, undefined).metadata!.annotations![FREEZE_ANNOTATION]).toBe('fz-9');
  });
});

describe('authorization targets and the requester', () => {
  it('a release action is authorized on each release and its chart; a freeze on its scope', () => {
    const suspend = prepareReleaseCommand({ verb: 'suspend', release: { name: 'a' } }, hr('web', 'a', { chart: 'billing' }), summarizeHistory([]));
    expect(authzTargets(suspend)).toEqual([{ kind: 'release', namespace: 'web', name: 'a', chart: 'billing' }]);
    const freeze = prepareFreeze({ verb: 'freeze', scope: { kind: 'namespace', namespace: 'web' }, reason: 'x' }, [hr('web', 'a')], 'fz-1');
    expect(authzTargets(freeze)).toEqual([{ kind: 'namespace', namespace: 'web' }]);
    expect(releaseAuthzTarget(hr('api', 'b'))).toEqual({ kind: 'release', namespace: 'api', name: 'b', chart: 'unicorn' });
    expect(namespaceAuthzTarget(undefined)).toEqual({ kind: 'all' });
    expect(namespaceAuthzTarget('web')).toEqual({ kind: 'namespace', namespace: 'web' });
  });
  it('a freeze of a namespace needs a rule without release or chart narrowing', () => {
    const teams: TeamPolicy[] = [
      { name: 'web', members: { slackUsers: ['UALICE'] }, permissions: [{ verbs: ['freeze'], namespaces: ['web'], charts: ['unicorn'] }] },
    ];
    const freeze = prepareFreeze({ verb: 'freeze', scope: { kind: 'namespace', namespace: 'web' }, reason: 'x' }, [hr('web', 'a')], 'fz-1');
    expect(authorizeAction({ slackUser: 'UALICE', slackUserGroups: [] }, freeze, teams)).toMatchObject({ allowed: false });
  });
  it('only the requester may confirm or cancel', () => {
    expect(isRequester({ slackUser: 'UALICE' }, 'UALICE')).toBe(true);
    expect(isRequester({ slackUser: 'UALICE' }, 'UBOB')).toBe(false);
  });
});
