import { describe, expect, it } from 'vitest';
import { ROLLBACK_REQUEST_ANNOTATION, SUSPENSION_ANNOTATION } from '../../../src/api/annotations.js';
import type { Freeze } from '../../../src/api/freeze.js';
import type { HelmRelease } from '../../../src/api/helmrelease.js';
import { authorizeAction } from '../../../src/session/authz/authorize-action.js';
import type { TeamPolicy } from '../../../src/session/authz/policy-types.js';
import { authzTargets, authzVerb, namespaceAuthzTarget, releaseAuthzTarget } from '../../../src/session/authz/targets.js';
import { intentPatch } from '../../../src/session/verbs/intent-of.js';
import { prepareFreeze, prepareReleaseCommand, prepareUnfreeze, stillAsPlanned, type PreparedAction } from '../../../src/session/plan/prepared.js';
import { summarizeHistory } from '../../../src/core/helm-storage/release-storage.js';

const hr = (namespace: string, name: string, over: { suspend?: boolean; generation?: number; chart?: string } = {}): HelmRelease => ({
  apiVersion: 'helmcrew.dev/v1alpha1',
  kind: 'HelmRelease',
  metadata: { name, namespace, generation: over.generation ?? 1 },
  spec: { chart: { repository: 'https://x.test', name: over.chart ?? 'unicorn', version: '1.0.0' }, ...(over.suspend ? { suspend: true } : {}) },
});
const alice = { id: 'slack:UALICE', channel: 'C1' };
const now = new Date('2026-01-02T03:04:05Z');

const frozenStatus = { conditions: [{ type: 'Frozen', status: 'True' as const, reason: 'Frozen', message: 'held', lastTransitionTime: 't' }] };
const freezeOf = (name: string, scope: Freeze['spec']['scope'], until?: string): Freeze => ({
  apiVersion: 'helmcrew.dev/v1alpha1',
  kind: 'Freeze',
  metadata: { name },
  spec: { scope, reason: `because ${name}`, setBy: 'slack:UBOB', ...(until ? { until } : {}) },
});
const world = { releases: [hr('web', 'a', { generation: 3 }), hr('web', 'held', { suspend: true }), hr('api', 'b')], teams: [] };

describe('prepareFreeze: a Freeze object, not a patch per release', () => {
  it('a namespace for 2h: the object, who set it, when it ends, and what it covers now', () => {
    const action = prepareFreeze(
      { verb: 'freeze', scope: { kind: 'namespace', namespace: 'web' }, reason: 'INC-4242', end: { kind: 'for', text: '2h', ms: 7_200_000 } },
      world,
      alice,
      now,
      'UTC',
      'web-7f3a',
    );
    expect(action.targets).toEqual([]);
    expect(action.freeze).toEqual({
      apiVersion: 'helmcrew.dev/v1alpha1',
      kind: 'Freeze',
      metadata: { name: 'web-7f3a' },
      spec: { scope: { namespaces: ['web'] }, reason: 'INC-4242', setBy: 'slack:UALICE', channel: 'C1', until: '2026-01-02T05:04:05Z' },
    });
    expect(action.plan.title).toBe('freeze namespace web (web-7f3a)');
    expect(action.plan.lines).toContain('covers 2 releases now: web/a, web/held');
    expect(action.plan.lines).toContain('ends by itself at 2026-01-02T05:04:05Z');
    expect(action.plan.doable).toBe(true);
  });
  it('--until 18:00 is the next 18:00 in the bot time zone', () => {
    const action = prepareFreeze(
      { verb: 'freeze', scope: { kind: 'all' }, reason: 'x', end: { kind: 'until', text: '18:00' } },
      world,
      alice,
      now,
      'Europe/Berlin',
      'all-1',
    );
    expect(action.freeze?.spec.until).toBe('2026-01-02T17:00:00Z');
  });
  it('an empty namespace can still be frozen: what is created there later is held', () => {
    const action = prepareFreeze({ verb: 'freeze', scope: { kind: 'namespace', namespace: 'new' }, reason: 'x' }, world, alice, now, 'UTC', 'new-1');
    expect(action.plan).toMatchObject({
      doable: true,
      lines: expect.arrayContaining(['covers no release now; HelmReleases created there later are held too']),
    });
  });
});

describe('prepareUnfreeze', () => {
  const releases = [{ ...hr('web', 'a'), status: frozenStatus }, { ...hr('api', 'b'), status: frozenStatus }, hr('web', 'c')];
  const freezes = [freezeOf('web-1', { namespaces: ['web'] }), freezeOf('all-1', { all: true }), freezeOf('api-1', { namespaces: ['api'] })];
  it('names what goes on and what another freeze keeps holding', () => {
    const action = prepareUnfreeze({ verb: 'unfreeze', name: 'api-1' }, { releases, teams: [], freezes: [freezes[0]!, freezes[2]!] }, now);
    expect(action.unfreeze?.metadata.name).toBe('api-1');
    expect(action.plan.lines.slice(1)).toEqual(['the controller goes on with 1 held release at once: api/b']);
    // What it lets go is awaited, so the channel hears what then happened.
    expect(action.targets).toEqual([{ namespace: 'api', name: 'b', chart: 'unicorn', generation: 1 }]);
    const overlapping = prepareUnfreeze({ verb: 'unfreeze', name: 'web-1' }, { releases, teams: [], freezes }, now);
    expect(overlapping.plan.lines.slice(1)).toEqual(['no release is held by it alone', 'web/a stays held by all-1']);
  });
  it('an unknown name is not doable and lists the active ones', () => {
    const action = prepareUnfreeze({ verb: 'unfreeze', name: 'nope' }, { releases, teams: [], freezes }, now);
    expect(action.plan).toMatchObject({ doable: false, lines: ['no freeze named nope; active: web-1, all-1, api-1'] });
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
  it('resume', () => {
    expect(intentPatch(action({ verb: 'resume', release: { name: 'a' } }), alice, now, undefined).spec).toEqual({ suspend: false });
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
  it('a freeze is an object, never a patch', () => {
    const freeze = prepareFreeze({ verb: 'freeze', scope: { kind: 'all' }, reason: 'incident' }, world, alice, now, 'UTC', 'all-1');
    expect(() => intentPatch(freeze, alice, now, undefined)).toThrow(/writes a Freeze/);
  });
  it('break-glass on a held release: the freezes it goes through, and two people', () => {
    const holding = [{ name: 'web-1', reason: 'INC' }];
    const glass = prepareReleaseCommand({ verb: 'upgrade', release: { name: 'a' }, version: '2.0.0', breakGlass: true }, release, history, holding);
    expect(glass.breakGlass).toEqual(['web-1']);
    expect(glass.plan.lines.at(-1)).toBe('BREAK-GLASS through freeze web-1 (INC): a second person must approve; audited');
    const teams: TeamPolicy[] = [{ name: 'web', members: { slackUsers: ['UALICE'] }, permissions: [{ verbs: ['upgrade'], namespaces: ['web'] }] }];
    expect(authorizeAction({ slackUser: 'UALICE', slackUserGroups: [] }, glass, teams)).toMatchObject({ allowed: true, requireApproval: true });
    const held = prepareReleaseCommand({ verb: 'upgrade', release: { name: 'a' }, version: '2.0.0' }, release, history, holding);
    expect(held.breakGlass).toBeUndefined();
    expect(held.plan.warnings.at(-1)).toMatch(/^held by freeze web-1 \(INC\): the controller does this when the freeze ends; add --break-glass/);
    expect(authorizeAction({ slackUser: 'UALICE', slackUserGroups: [] }, held, teams)).toMatchObject({ allowed: true, requireApproval: false });
  });
});

describe('authorization targets and the requester', () => {
  it('a release action is authorized on each release and its chart; a freeze on its scope', () => {
    const suspend = prepareReleaseCommand({ verb: 'suspend', release: { name: 'a' } }, hr('web', 'a', { chart: 'billing' }), summarizeHistory([]));
    expect(authzTargets(suspend)).toEqual([{ kind: 'release', namespace: 'web', name: 'a', chart: 'billing' }]);
    const freeze = prepareFreeze({ verb: 'freeze', scope: { kind: 'namespace', namespace: 'web' }, reason: 'x' }, world, alice, now, 'UTC', 'web-1');
    expect(authzTargets(freeze)).toEqual([{ kind: 'namespace', namespace: 'web' }]);
    expect(authzVerb(freeze)).toBe('freeze');
    const team = prepareFreeze({ verb: 'freeze', scope: { kind: 'team', team: 'frontend' }, reason: 'x' }, world, alice, now, 'UTC', 't-1');
    expect(authzTargets(team)).toEqual([{ kind: 'team', team: 'frontend' }]);
    const all = prepareFreeze({ verb: 'freeze', scope: { kind: 'all' }, reason: 'x' }, world, alice, now, 'UTC', 'all-1');
    expect([authzTargets(all), authzVerb(all)]).toEqual([[{ kind: 'all' }], 'freeze-all']);
    const lift = prepareUnfreeze({ verb: 'unfreeze', name: 'all-1' }, { ...world, freezes: [freezeOf('all-1', { all: true })] }, now);
    expect(authzVerb(lift)).toBe('freeze-all');
    expect(releaseAuthzTarget(hr('api', 'b'))).toEqual({ kind: 'release', namespace: 'api', name: 'b', chart: 'unicorn' });
    expect(namespaceAuthzTarget(undefined)).toEqual({ kind: 'all' });
    expect(namespaceAuthzTarget('web')).toEqual({ kind: 'namespace', namespace: 'web' });
  });
  it('a freeze of a namespace needs a rule without release or chart narrowing', () => {
    const teams: TeamPolicy[] = [
      { name: 'web', members: { slackUsers: ['UALICE'] }, permissions: [{ verbs: ['freeze'], namespaces: ['web'], charts: ['unicorn'] }] },
    ];
    const freeze = prepareFreeze({ verb: 'freeze', scope: { kind: 'namespace', namespace: 'web' }, reason: 'x' }, world, alice, now, 'UTC', 'web-1');
    expect(authorizeAction({ slackUser: 'UALICE', slackUserGroups: [] }, freeze, teams)).toMatchObject({ allowed: false });
  });
  it('in a fleet, the command’s cluster is on every target, and a permission limited to other clusters refuses it', () => {
    const rollback = prepareReleaseCommand({ verb: 'suspend', release: { name: 'a' } }, hr('web', 'a'), summarizeHistory([]));
    expect(authzTargets(rollback, 'prod-eu')).toEqual([{ kind: 'release', namespace: 'web', name: 'a', chart: 'unicorn', cluster: 'prod-eu' }]);
    const teams: TeamPolicy[] = [{ name: 'web', members: { slackUsers: ['UALICE'] }, permissions: [{ verbs: ['suspend'], clusters: ['staging-*'] }] }];
    const alicia = { slackUser: 'UALICE', slackUserGroups: [] };
    expect(authorizeAction(alicia, rollback, teams, 'staging-1')).toMatchObject({ allowed: true });
    expect(authorizeAction(alicia, rollback, teams, 'prod-eu')).toMatchObject({ allowed: false, reason: expect.stringContaining('in cluster prod-eu') });
  });
});
