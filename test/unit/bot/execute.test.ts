import { describe, expect, it } from 'vitest';
import {
  BREAK_GLASS_ANNOTATION,
  readBreakGlass,
  ROLLBACK_REQUEST_ANNOTATION,
  ROLLBACK_TO_ANNOTATION,
  SUSPENSION_ANNOTATION,
} from '../../../src/api/annotations.js';
import type { Team } from '../../../src/api/team.js';
import type { HelmRelease } from '../../../src/api/helmrelease.js';
import { breakGlassPatch } from '../../../src/session/execute/freeze-writes.js';
import { freezeName, releasesInScope, scopeSpec } from '../../../src/session/plan/freeze.js';
import { gitOpsOwner } from '../../../src/core/release/gitops-owner.js';
import { resumePatch, rollbackPatch, suspendPatch, upgradePatch } from '../../../src/session/plan/intents.js';
import { outcomeOf } from '../../../src/session/execute/outcome.js';
import { resolveRelease } from '../../../src/session/plan/resolve.js';
import { findRelease } from '../../../src/session/execute/find-release.js';
import { escapeMrkdwn, unescapeSlackText } from '../../../src/core/slack/mrkdwn.js';
import { diffValues, summarizeValuesDifference } from '../../../src/session/plan/values-diff.js';

const hr = (
  namespace: string,
  name: string,
  over: {
    suspend?: boolean;
    annotations?: Record<string, string>;
    labels?: Record<string, string>;
    managedFields?: Array<{ manager: string }>;
    status?: HelmRelease['status'];
    generation?: number;
  } = {},
): HelmRelease =>
  ({
    apiVersion: 'helmcrew.dev/v1alpha1',
    kind: 'HelmRelease',
    metadata: { name, namespace, generation: over.generation ?? 1, annotations: over.annotations, labels: over.labels, managedFields: over.managedFields },
    spec: { chart: { repository: 'https://x.test', name: 'unicorn', version: '1.0.0' }, ...(over.suspend !== undefined ? { suspend: over.suspend } : {}) },
    status: over.status,
  }) as HelmRelease;

const releases = [hr('web', 'unicorn'), hr('staging', 'unicorn'), hr('web', 'dragon')];

describe('resolveRelease', () => {
  it.each([
    { name: 'unique bare name', ref: { name: 'dragon' }, want: { ok: true, key: 'web/dragon' } },
    { name: 'namespace/name', ref: { namespace: 'staging', name: 'unicorn' }, want: { ok: true, key: 'staging/unicorn' } },
    {
      name: 'ambiguous bare name lists the candidates',
      ref: { name: 'unicorn' },
      want: { ok: false, message: '"unicorn" is in 2 namespaces; say which: staging/unicorn, web/unicorn' },
    },
    { name: 'a typo', ref: { name: 'dargon' }, want: { ok: false, message: 'no release "dargon" — did you mean "dragon"?' } },
    {
      name: 'right name, wrong namespace',
      ref: { namespace: 'prod', name: 'dragon' },
      want: { ok: false, message: 'no release "prod/dragon"; there is web/dragon' },
    },
    { name: 'nothing like it', ref: { name: 'zebra' }, want: { ok: false, message: 'no release "zebra"' } },
  ])('$name', ({ ref, want }) => {
    const result = resolveRelease(ref, releases);
    expect(
      result.ok ? { ok: true, key: `${result.release.metadata.namespace}/${result.release.metadata.name}` } : { ok: false, message: result.message },
    ).toEqual(want);
  });
});

describe('findRelease: namespace/name read by name; a bare name or a miss from the list', () => {
  /** The cluster's releases, counting what was read: a GET by name, or the namespace's (or every) list. */
  const lookup = () => {
    const reads: string[] = [];
    return {
      reads,
      api: {
        get: async (namespace: string, name: string) => {
          reads.push(`get ${namespace}/${name}`);
          return releases.find((r) => r.metadata.namespace === namespace && r.metadata.name === name);
        },
        list: async (namespace?: string) => {
          reads.push(`list ${namespace ?? '*'}`);
          return { items: releases.filter((r) => !namespace || r.metadata.namespace === namespace) };
        },
      },
    };
  };
  it.each([
    { name: 'namespace/name there: one GET', ref: { namespace: 'staging', name: 'unicorn' }, want: 'staging/unicorn', reads: ['get staging/unicorn'] },
    {
      name: 'namespace/name not there: the namespace listed for the suggestion',
      ref: { namespace: 'web', name: 'dargon' },
      want: 'no release "web/dargon" — did you mean "dragon"?',
      reads: ['get web/dargon', 'list web'],
    },
    { name: 'a bare name: every namespace listed', ref: { name: 'dragon' }, want: 'web/dragon', reads: ['list *'] },
  ])('$name', async ({ ref, want, reads }) => {
    const { api, reads: seen } = lookup();
    const result = await findRelease(api, ref);
    expect(result.ok ? `${result.release.metadata.namespace}/${result.release.metadata.name}` : result.message).toBe(want);
    expect(seen).toEqual(reads);
  });
});

describe('what a freeze scope covers (the Freeze object holds them; nothing is patched)', () => {
  const world = [hr('web', 'a'), hr('web', 'held', { suspend: true }), hr('api', 'b', { labels: { tier: 'edge' } }), hr('data', 'c')];
  const teams = [
    { metadata: { name: 'frontend' }, spec: { subscriptions: [{ namespaces: ['web'] }, { selector: { matchLabels: { tier: 'edge' } } }] } },
    { metadata: { name: 'sre' }, spec: { subscriptions: [{}] } },
  ] as Team[];
  const keys = (list: HelmRelease[]) => list.map((r) => `${r.metadata.namespace}/${r.metadata.name}`);
  it.each([
    {
      name: 'a namespace, suspended ones included (a freeze holds them too)',
      scope: { kind: 'namespace' as const, namespace: 'web' },
      want: ['web/a', 'web/held'],
    },
    { name: 'all', scope: { kind: 'all' as const }, want: ['api/b', 'data/c', 'web/a', 'web/held'] },
    { name: "a Team's subscriptions (namespaces and a selector)", scope: { kind: 'team' as const, team: 'frontend' }, want: ['api/b', 'web/a', 'web/held'] },
    { name: 'a Team that only hears everything owns nothing', scope: { kind: 'team' as const, team: 'sre' }, want: [] },
    { name: 'an unknown Team', scope: { kind: 'team' as const, team: 'nobody' }, want: [] },
    { name: 'a chart', scope: { kind: 'chart' as const, chart: 'unicorn' }, want: ['api/b', 'data/c', 'web/a', 'web/held'] },
  ])('$name', ({ scope, want }) => {
    expect(keys(releasesInScope(scopeSpec(scope), world, teams))).toEqual(want);
  });
  it('names are short and typeable', () => {
    expect(freezeName({ kind: 'namespace', namespace: 'prod' }, '7f3a')).toBe('prod-7f3a');
    expect(freezeName({ kind: 'team', team: 'frontend' }, '7f3a')).toBe('team-frontend-7f3a');
    expect(freezeName({ kind: 'chart', chart: 'my_chart.x' }, '00ff')).toBe('chart-my-chart-x-00ff');
    expect(freezeName({ kind: 'all' }, 'beef')).toBe('all-beef');
  });
});

describe('intent patches', () => {
  const now = new Date('2026-11-23T03:00:00Z');
  const actor = { id: 'slack:U1', channel: 'C1' };
  it('suspend records who, why, when and where', () => {
    expect(suspendPatch(actor, 'db down', now)).toEqual({
      metadata: {
        annotations: {
          [SUSPENSION_ANNOTATION]: JSON.stringify({ by: 'slack:U1', at: '2026-11-23T03:00:00.000Z', reason: 'db down', channel: 'C1' }),
        },
      },
      spec: { suspend: true },
    });
  });
  it('rollback suspends and asks once, by request id', () => {
    const patch = rollbackPatch(actor, undefined, 3, 'rb-1', now);
    expect(patch.spec).toEqual({ suspend: true });
    expect(patch.metadata?.annotations).toMatchObject({ [ROLLBACK_REQUEST_ANNOTATION]: 'rb-1', [ROLLBACK_TO_ANNOTATION]: '3' });
    expect(JSON.parse(patch.metadata!.annotations![SUSPENSION_ANNOTATION]!)).toMatchObject({ reason: 'rollback to 3' });
    expect(rollbackPatch(actor, 'why', undefined, 'rb-2', now).metadata?.annotations?.[ROLLBACK_TO_ANNOTATION]).toBe('previous');
  });
  it('resume clears the suspension and a pending rollback', () => {
    expect(resumePatch()).toEqual({
      metadata: { annotations: { [SUSPENSION_ANNOTATION]: null, [ROLLBACK_REQUEST_ANNOTATION]: null, [ROLLBACK_TO_ANNOTATION]: null } },
      spec: { suspend: false },
    });
  });
  it('break-glass names the generation its own patch makes, and is conditional on the version read', () => {
    const release = { ...hr('web', 'a', { generation: 4 }), metadata: { ...hr('web', 'a', { generation: 4 }).metadata, resourceVersion: '77' } } as HelmRelease;
    const glass = { freezes: ['prod-1'], approvedBy: 'slack:U2' };
    const upgrade = breakGlassPatch(upgradePatch('2.0.0'), release, actor, glass, now);
    expect(upgrade.spec).toEqual({ chart: { version: '2.0.0' } });
    expect(upgrade.metadata?.resourceVersion).toBe('77');
    expect(readBreakGlass(upgrade.metadata?.annotations as Record<string, string>)).toEqual({
      freezes: ['prod-1'],
      generation: 5,
      by: 'slack:U1',
      approvedBy: 'slack:U2',
      at: '2026-11-23T03:00:00.000Z',
    });
    // A rollback of a release already suspended changes no spec: the generation stays.
    const suspended = { ...release, spec: { ...release.spec, suspend: true } };
    const rollback = breakGlassPatch(rollbackPatch(actor, undefined, 3, 'rb-1', now), suspended, actor, glass, now);
    expect(JSON.parse(rollback.metadata!.annotations![BREAK_GLASS_ANNOTATION]!)).toMatchObject({ generation: 4 });
  });
  it('a malformed break-glass record is no record', () => {
    expect(readBreakGlass({ [BREAK_GLASS_ANNOTATION]: '{"freezes":"x","generation":1}' })).toBeUndefined();
    expect(readBreakGlass({ [BREAK_GLASS_ANNOTATION]: 'not json' })).toBeUndefined();
  });
});

describe('gitOpsOwner', () => {
  it.each([
    { name: 'plain', given: hr('web', 'a'), want: undefined },
    {
      name: 'Flux kustomization label',
      given: hr('web', 'a', { labels: { 'kustomize.toolkit.fluxcd.io/name': 'apps' } }),
      want: 'Flux (kustomize-controller)',
    },
    { name: 'Argo CD tracking annotation', given: hr('web', 'a', { annotations: { 'argocd.argoproj.io/tracking-id': 'x' } }), want: 'Argo CD' },
    { name: 'Argo CD as field manager', given: hr('web', 'a', { managedFields: [{ manager: 'argocd-controller' }] }), want: 'Argo CD' },
    { name: 'kubectl as field manager', given: hr('web', 'a', { managedFields: [{ manager: 'kubectl-client-side-apply' }] }), want: undefined },
  ])('$name → $want', ({ given, want }) => {
    expect(gitOpsOwner(given)).toBe(want);
  });
});

describe('outcomeOf (read from status only)', () => {
  const cond = (type: string, status: 'True' | 'False' | 'Unknown', message = 'm', observedGeneration = 2) => ({
    type,
    status,
    reason: 'r',
    message,
    lastTransitionTime: 't',
    observedGeneration,
  });
  it.each([
    {
      name: 'rollback not handled yet',
      verb: 'rollback' as const,
      given: hr('web', 'a', { status: { rollback: { requestId: 'old', succeeded: true, message: 'x', at: 't' } } }),
      want: { done: false },
    },
    {
      name: 'rollback started, helm still running',
      verb: 'rollback' as const,
      given: hr('web', 'a', { status: { rollback: { requestId: 'rb', succeeded: false, inProgress: true, message: 'Rolling back', at: 't' } } }),
      want: { done: false },
    },
    {
      name: 'rollback handled',
      verb: 'rollback' as const,
      given: hr('web', 'a', { status: { rollback: { requestId: 'rb', succeeded: false, message: 'no earlier revision', at: 't' } } }),
      want: { done: true, succeeded: false, message: 'web/a: no earlier revision' },
    },
    {
      name: 'correction not handled yet',
      verb: 'correct' as const,
      given: hr('web', 'a', { status: { lastDriftCorrection: { requestId: 'older', revision: 1, succeeded: true, message: 'x', at: 't' } } }),
      want: { done: false },
    },
    {
      name: 'correction handled',
      verb: 'correct' as const,
      given: hr('web', 'a', {
        status: {
          lastDriftCorrection: { requestId: 'rb', revision: 1, succeeded: true, message: 'Re-applied revision 1 to ConfigMap web/page (deleted)', at: 't' },
        },
      }),
      want: { done: true, succeeded: true, message: 'web/a: Re-applied revision 1 to ConfigMap web/page (deleted)' },
    },
    {
      name: 'test not handled yet (an earlier request recorded)',
      verb: 'test' as const,
      given: hr('web', 'a', { status: { lastTest: { requestId: 'older', revision: 1, succeeded: true, message: 'x', at: 't' } } }),
      want: { done: false },
    },
    {
      name: 'test handled, a hook failed',
      verb: 'test' as const,
      given: hr('web', 'a', {
        status: { lastTest: { requestId: 'rb', revision: 2, succeeded: false, message: 'helm test of revision 2 failed: pod a-smoke failed', at: 't' } },
      }),
      want: { done: true, succeeded: false, message: 'web/a: helm test of revision 2 failed: pod a-smoke failed' },
    },
    {
      name: 'test held by a freeze: recorded',
      verb: 'test' as const,
      given: hr('web', 'a', { generation: 2, status: { conditions: [{ ...cond('Frozen', 'True', 'test held by freeze f (x)'), observedGeneration: 2 }] } }),
      want: { done: true, succeeded: true, message: 'web/a: recorded; test held by freeze f (x)' },
    },
    {
      name: 'suspend seen',
      verb: 'suspend' as const,
      given: hr('web', 'a', { status: { conditions: [cond('Suspended', 'True', 'Suspended by slack:U1')] } }),
      want: { done: true, succeeded: true },
    },
    {
      name: 'resume, still marked suspended',
      verb: 'resume' as const,
      given: hr('web', 'a', { generation: 2, status: { observedGeneration: 2, conditions: [cond('Suspended', 'True'), cond('Ready', 'True')] } }),
      want: { done: false },
    },
    {
      name: 'resume, ready for the new generation',
      verb: 'resume' as const,
      given: hr('web', 'a', { generation: 2, status: { observedGeneration: 2, conditions: [cond('Ready', 'True', 'Upgraded')] } }),
      want: { done: true, succeeded: true, message: 'web/a: Upgraded' },
    },
    {
      name: 'upgrade, ready for an older generation',
      verb: 'upgrade' as const,
      given: hr('web', 'a', { generation: 3, status: { observedGeneration: 2, conditions: [cond('Ready', 'True')] } }),
      want: { done: false },
    },
    {
      name: 'upgrade failed',
      verb: 'upgrade' as const,
      given: hr('web', 'a', { generation: 2, status: { observedGeneration: 2, conditions: [cond('Ready', 'False', 'Helm upgrade failed')] } }),
      want: { done: true, succeeded: false },
    },
    {
      name: 'upgrade held by a freeze at this generation: recorded, waits for the freeze',
      verb: 'upgrade' as const,
      given: hr('web', 'a', {
        generation: 2,
        status: { observedGeneration: 2, conditions: [cond('Frozen', 'True', 'The upgrade is held by freeze prod-1 (x)')] },
      }),
      want: { done: true, succeeded: true, message: 'web/a: recorded; The upgrade is held by freeze prod-1 (x)' },
    },
    {
      name: 'upgrade, Frozen from an older generation: still waiting',
      verb: 'upgrade' as const,
      given: hr('web', 'a', { generation: 3, status: { observedGeneration: 2, conditions: [cond('Frozen', 'True', 'held', 2)] } }),
      want: { done: false },
    },
  ])('$name', ({ verb, given, want }) => {
    expect(outcomeOf(given, verb, 'rb')).toMatchObject(want);
  });
  it.each([
    {
      name: 'still naming the lifted freeze: the controller has not looked yet',
      given: hr('web', 'a', { status: { conditions: [cond('Frozen', 'True', 'The upgrade is held by freeze web-1 (x)', 1)] } }),
      want: { done: false },
    },
    {
      name: 'held by another freeze',
      given: hr('web', 'a', { status: { conditions: [cond('Frozen', 'True', 'The upgrade is held by freeze all-1 (y)', 1)] } }),
      want: { done: true, succeeded: true, message: 'web/a: still held. The upgrade is held by freeze all-1 (y)' },
    },
    {
      name: 'gone on and upgraded',
      given: hr('web', 'a', { status: { observedGeneration: 1, conditions: [cond('Ready', 'True', 'Upgraded', 1)] } }),
      want: { done: true, succeeded: true, message: 'web/a: Upgraded' },
    },
  ])('unfreeze: $name', ({ given, want }) => {
    expect(outcomeOf(given, 'unfreeze', undefined, 'web-1')).toMatchObject(want);
  });
});

describe('values difference (paths only, never values)', () => {
  it('names changed, added and removed paths', () => {
    const diff = diffValues({ color: 'blue', db: { password: 's3cret', host: 'a' } }, { color: 'pink', db: { password: 'other', port: 5432 } });
    expect(diff).toEqual({ added: ['db.port'], removed: ['db.host'], changed: ['color', 'db.password'] });
    const summary = summarizeValuesDifference(diff);
    expect(summary).toBe('values: changed color, db.password; added db.port; removed db.host');
    expect(summary).not.toMatch(/s3cret|other/);
  });
  it('no difference', () => {
    expect(summarizeValuesDifference(diffValues({ a: [1] }, { a: [1] }))).toBe('values: no difference');
  });
  it('objects in a list with their keys in another order are no difference', () => {
    const fromHelm = { env: [{ name: 'A', value: '1' }] };
    const fromSpec = { env: [{ value: '1', name: 'A' }] };
    expect(summarizeValuesDifference(diffValues(fromHelm, fromSpec))).toBe('values: no difference');
    expect(diffValues(fromHelm, { env: [{ value: '2', name: 'A' }] }).changed).toEqual(['env']);
  });
});

describe('escapeMrkdwn', () => {
  it.each([
    ['<!channel> look', '&lt;!channel&gt; look'],
    ['<@U123|bob>', '&lt;@U123|bob&gt;'],
    ['a & b', 'a &amp; b'],
  ])('%s', (given, want) => {
    expect(escapeMrkdwn(given)).toBe(want);
  });
});

describe('unescapeSlackText', () => {
  it('gives the grammar what was typed, and escaping it again round-trips', () => {
    const typed = 'suspend unicorn --reason a < b && c > d';
    const fromSlack = 'suspend unicorn --reason a &lt; b &amp;&amp; c &gt; d';
    expect(unescapeSlackText(fromSlack)).toBe(typed);
    expect(escapeMrkdwn(unescapeSlackText(fromSlack))).toBe('suspend unicorn --reason a &lt; b &amp;&amp; c &gt; d');
  });
});
