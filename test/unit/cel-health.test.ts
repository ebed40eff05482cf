import { describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import type { DependencyReference } from '../../src/api/dependency.js';
import type { KubeObject } from '../../src/core/kube/cluster-objects.js';
import { compileCel } from '../../src/core/cel/cel-expression.js';
import { objectReadiness } from '../../src/core/kube/object-readiness.js';
import { compileHealthChecks, checkFor, judgeObject, judgeRelease, objectsToJudge } from '../../src/controller/reconcile/decide/health-check-decision.js';
import { describeVerdict, evaluateDependencies, dependencyKeys, type ObjectLookup } from '../../src/controller/reconcile/decide/dependency-decision.js';

const cond = (type: string, status: string, extra: Record<string, unknown> = {}) => ({ type, status, ...extra });
const obj = (apiVersion: string, kind: string, name: string, rest: Record<string, unknown> = {}, generation = 1): KubeObject => ({
  apiVersion,
  kind,
  metadata: { name, namespace: 'web', generation },
  ...rest,
});

describe('compileCel', () => {
  it.each([
    { name: 'a bool over the object', source: "status.conditions.exists(c, c.type == 'Ready')", vars: undefined, ok: true },
    { name: 'a parse error', source: 'status.conditions.exists(', vars: undefined, ok: false, error: /Unexpected token/ },
    { name: 'not a bool', source: "'yes'", vars: undefined, ok: false, error: /must be a bool expression, this one is string/ },
    { name: 'readyExpr over dep and self', source: 'dep.spec.v == self.spec.v', vars: ['self', 'dep'], ok: true },
    { name: 'readyExpr naming an unknown variable', source: 'other.x == 1', vars: ['self', 'dep'], ok: false, error: /Unknown variable: other/ },
  ])('$name', ({ source, vars, ok, error }) => {
    const compiled = compileCel(source, vars);
    expect(compiled.ok).toBe(ok);
    if (!compiled.ok && error) expect(compiled.error).toMatch(error);
  });

  it('sees the API server integers as ints, and a missing field as an error, not a crash', () => {
    const compiled = compileCel('metadata.generation == 2 && metadata.generation == status.observedGeneration');
    if (!compiled.ok) throw new Error(compiled.error);
    expect(compiled.program.evaluate({ metadata: { generation: 2 }, status: { observedGeneration: 2 } })).toEqual({ ok: true, value: true });
    const missing = compileCel("status.phase == 'Ready'");
    if (!missing.ok) throw new Error(missing.error);
    expect(missing.program.evaluate({ status: {} })).toMatchObject({ ok: false, error: expect.stringMatching(/phase/) });
  });
});

const certificates = [
  {
    apiVersion: 'cert-manager.io/v1',
    kind: 'Certificate',
    inProgress: "status.conditions.exists(c, c.type == 'Issuing' && c.status == 'True')",
    failed: "status.conditions.exists(c, c.type == 'Ready' && c.status == 'False' && c.reason == 'Failed')",
    current: "status.conditions.exists(c, c.type == 'Ready' && c.status == 'True')",
  },
];

describe('healthCheckExprs', () => {
  const compiled = compileHealthChecks(certificates);
  if (!compiled.ok) throw new Error(compiled.problems.join());
  const check = compiled.checks[0]!;
  const cert = (conditions: unknown[], observed = 1) =>
    obj('cert-manager.io/v1', 'Certificate', 'tls', { status: { observedGeneration: observed, conditions } });

  it.each([
    { name: 'no status yet: in progress', object: obj('cert-manager.io/v1', 'Certificate', 'tls'), want: 'in-progress' },
    { name: 'Ready=True: current', object: cert([cond('Ready', 'True')]), want: 'current' },
    { name: 'Ready=False reason Failed: failed (checked before current)', object: cert([cond('Ready', 'False', { reason: 'Failed' })]), want: 'failed' },
    { name: 'inProgress is checked first', object: cert([cond('Issuing', 'True'), cond('Ready', 'True')]), want: 'in-progress' },
    { name: 'observedGeneration behind: in progress whatever the conditions', object: { ...cert([cond('Ready', 'True')], 0) }, want: 'in-progress' },
  ])('$name', ({ object, want }) => {
    expect(judgeObject(check, object).status).toBe(want);
  });

  it('names every expression that does not compile by its field, and a second entry for one kind', () => {
    const bad = compileHealthChecks([
      { apiVersion: 'example.com/v1', kind: 'Widget', current: 'status.ready ==', failed: "'no'" },
      { apiVersion: 'example.com/v2', kind: 'Widget', current: 'true' },
    ]);
    expect(bad.ok).toBe(false);
    if (bad.ok) return;
    expect(bad.problems).toEqual([
      expect.stringMatching(/^spec\.healthCheckExprs\[0\]\.current "status\.ready ==": Unexpected token/),
      expect.stringMatching(/^spec\.healthCheckExprs\[0\]\.failed "'no'": must be a bool expression/),
      expect.stringMatching(/^spec\.healthCheckExprs\[1\]: a second entry for Widget of group "example\.com"/),
    ]);
  });

  it('matches by group (any version), a kind entry before its group entry, and picks the release objects it judges', () => {
    const both = compileHealthChecks([
      { apiVersion: 'example.com/v1', current: 'false' },
      { apiVersion: 'example.com/v1', kind: 'Widget', current: 'true' },
    ]);
    if (!both.ok) throw new Error(both.problems.join());
    expect(checkFor(both.checks, 'example.com/v2', 'Widget')?.kind).toBe('Widget');
    expect(checkFor(both.checks, 'example.com/v1', 'Gadget')?.kind).toBeUndefined();
    expect(checkFor(both.checks, 'apps/v1', 'Deployment')).toBeUndefined();
    const manifest = [obj('apps/v1', 'Deployment', 'web'), { ...obj('example.com/v1', 'Widget', 'w'), metadata: { name: 'w' } } as KubeObject];
    expect(objectsToJudge(both.checks, manifest, 'apps')).toEqual([{ apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', namespace: 'apps' }]);
  });

  it('judges a release: failed if one failed, in progress while one is missing or not current, else current', () => {
    const ref = { apiVersion: 'cert-manager.io/v1', kind: 'Certificate', name: 'tls', namespace: 'web' };
    const found = (conditions: unknown[]) => ({ ref, found: { kind: 'found' as const, object: cert(conditions), clusterScoped: false } });
    expect(judgeRelease(compiled.checks, [found([cond('Ready', 'True')])])).toEqual({ kind: 'current' });
    expect(judgeRelease(compiled.checks, [{ ref, found: { kind: 'missing', clusterScoped: false } }])).toEqual({
      kind: 'in-progress',
      waiting: ['Certificate web/tls: not found'],
    });
    expect(judgeRelease(compiled.checks, [found([cond('Ready', 'True')]), found([cond('Ready', 'False', { reason: 'Failed' })])])).toMatchObject({
      kind: 'failed',
      failed: [expect.stringContaining('Certificate web/tls:')],
    });
  });
});

describe('objectReadiness (kstatus)', () => {
  it.each([
    {
      name: 'CRD Established',
      o: obj('apiextensions.k8s.io/v1', 'CustomResourceDefinition', 'widgets.example.com', { status: { conditions: [cond('Established', 'True')] } }),
      want: 'current',
    },
    {
      name: 'CRD not yet Established',
      o: obj('apiextensions.k8s.io/v1', 'CustomResourceDefinition', 'w', { status: { conditions: [] } }),
      want: 'in-progress',
    },
    {
      name: 'Deployment Available with all replicas',
      o: obj('apps/v1', 'Deployment', 'api', {
        spec: { replicas: 2 },
        status: { observedGeneration: 1, replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2, conditions: [cond('Available', 'True')] },
      }),
      want: 'current',
    },
    { name: 'Deployment with no status', o: obj('apps/v1', 'Deployment', 'api', { spec: { replicas: 1 } }), want: 'in-progress' },
    {
      name: 'Deployment past its progress deadline',
      o: obj('apps/v1', 'Deployment', 'api', { status: { conditions: [cond('Progressing', 'False', { reason: 'ProgressDeadlineExceeded' })] } }),
      want: 'failed',
    },
    { name: 'Deployment status of an older generation', o: obj('apps/v1', 'Deployment', 'api', { status: { observedGeneration: 1 } }, 2), want: 'in-progress' },
    { name: 'a kind with Ready=False', o: obj('example.com/v1', 'Widget', 'w', { status: { conditions: [cond('Ready', 'False')] } }), want: 'in-progress' },
    { name: 'a kind without conditions (a ConfigMap)', o: obj('v1', 'ConfigMap', 'c'), want: 'current' },
  ])('$name', ({ o, want }) => {
    expect(objectReadiness(o).status).toBe(want);
  });
});

describe('dependsOn on any object, and readyExpr', () => {
  const release = (dependsOn: DependencyReference[], values: Record<string, unknown> = { v: 2 }): HelmRelease => ({
    apiVersion: 'helmcrew.dev/v1alpha1',
    kind: 'HelmRelease',
    metadata: { name: 'app', namespace: 'web', generation: 1 },
    spec: { chart: { repository: 'https://x.test', name: 'unicorn' }, values, dependsOn },
  });
  const readyDb = (v: number, ready: 'True' | 'False' = 'True'): HelmRelease => ({
    ...release([], { v }),
    metadata: { name: 'db', namespace: 'web', generation: 3 },
    status: {
      observedGeneration: 3,
      conditions: [{ type: 'Ready', status: ready, reason: 'X', message: '', lastTransitionTime: '2026-11-26T00:00:00Z', observedGeneration: 3 }],
    },
  });
  const crd = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: 'widgets.example.com', ready: true };
  const lookup = (db?: HelmRelease) => (key: string) => (key === 'web/db' ? db : undefined);
  const objects =
    (byKind: Record<string, ReturnType<ObjectLookup>>): ObjectLookup =>
    (t) =>
      byKind[t.kind];

  it('keeps HelmReleases (and only them) in the dependency graph', () => {
    expect(dependencyKeys(release([{ name: 'db' }, crd, { name: 'x', apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease' }]))).toEqual(['web/db']);
  });

  it.each([
    {
      name: 'readyExpr true on a HelmRelease that is not Ready: ready (the expression replaces the built-in check)',
      deps: [{ name: 'db', readyExpr: 'dep.spec.values.v == self.spec.values.v' }],
      db: readyDb(2, 'False'),
      want: { kind: 'ready' },
    },
    {
      name: 'readyExpr false: waiting, naming the object and the expression',
      deps: [{ name: 'db', readyExpr: 'dep.spec.values.v == self.spec.values.v' }],
      db: readyDb(1),
      message: 'Waiting for HelmRelease web/db: readyExpr "dep.spec.values.v == self.spec.values.v" is false (dependsOn)',
    },
    {
      name: 'readyExpr that does not compile: invalid, named by field',
      deps: [{ name: 'db', readyExpr: 'dep.spec ==' }],
      db: readyDb(1),
      message: /^spec\.dependsOn\[0\]\.readyExpr: Unexpected token/,
    },
  ])('$name', ({ deps, db, want, message }) => {
    const verdict = evaluateDependencies(release(deps), lookup(db));
    if (want) expect(verdict).toEqual(want);
    if (message) {
      expect(verdict.kind).not.toBe('ready');
      if (verdict.kind !== 'ready') expect(describeVerdict(verdict)).toMatch(message);
    }
  });

  it('waits for a CRD to exist and be Established; ready: false (the default for other kinds) only needs it to exist', () => {
    const established = {
      kind: 'found' as const,
      clusterScoped: true,
      object: obj(crd.apiVersion, crd.kind, crd.name, { status: { conditions: [cond('Established', 'True')] } }),
    };
    const pending = { ...established, object: obj(crd.apiVersion, crd.kind, crd.name, { status: { conditions: [] } }) };
    const r = release([crd]);
    const missing = evaluateDependencies(r, lookup(), objects({ CustomResourceDefinition: { kind: 'missing', clusterScoped: true } }));
    expect(missing.kind === 'waiting' && describeVerdict(missing)).toBe(
      'Waiting for apiextensions.k8s.io/v1 CustomResourceDefinition widgets.example.com: does not exist yet (dependsOn)',
    );
    const notYet = evaluateDependencies(r, lookup(), objects({ CustomResourceDefinition: pending }));
    expect(notYet.kind === 'waiting' && describeVerdict(notYet)).toMatch(/CustomResourceDefinition widgets\.example\.com: not ready: not Established yet/);
    expect(evaluateDependencies(r, lookup(), objects({ CustomResourceDefinition: established }))).toEqual({ kind: 'ready' });
    const existsOnly = release([{ ...crd, ready: undefined }]);
    expect(evaluateDependencies(existsOnly, lookup(), objects({ CustomResourceDefinition: pending }))).toEqual({ kind: 'ready' });
  });

  it('a readyExpr on a Deployment is judged on it, and a kind the API server does not serve waits, saying so', () => {
    const dep = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'api', readyExpr: 'dep.status.availableReplicas >= 2' };
    const deployment = (available: number) => ({
      kind: 'found' as const,
      clusterScoped: false,
      object: obj('apps/v1', 'Deployment', 'api', { status: { availableReplicas: available } }),
    });
    expect(evaluateDependencies(release([dep]), lookup(), objects({ Deployment: deployment(2) }))).toEqual({ kind: 'ready' });
    const one = evaluateDependencies(release([dep]), lookup(), objects({ Deployment: deployment(1) }));
    expect(one.kind === 'waiting' && describeVerdict(one)).toBe(
      'Waiting for apps/v1 Deployment web/api: readyExpr "dep.status.availableReplicas >= 2" is false (dependsOn)',
    );
    const unserved = evaluateDependencies(
      release([dep]),
      lookup(),
      objects({ Deployment: { kind: 'unreadable', message: 'the API server serves no Deployment in apps/v1 (not installed yet?)' } }),
    );
    expect(unserved.kind).toBe('waiting');
  });
});
