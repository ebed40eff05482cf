import { describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import type { KubeObject } from '../../src/core/kube/cluster-objects.js';
import { correctionBody } from '../../src/controller/drift/correction-body.js';
import { driftedFields, ignoredPaths, MAX_PATHS_PER_OBJECT } from '../../src/controller/drift/drift-compare.js';
import { decideDrift, describeCorrection, describeDrift, driftCheckWanted, pendingDriftCorrection } from '../../src/controller/drift/drift-decision.js';
import { slotPassed, slotPhaseMs } from '../../src/controller/drift/drift-schedule.js';
import { formatPointer, getAt, parsePointer, removeAt, setAt } from '../../src/controller/drift/json-pointer.js';
import { describeObject, ManifestError, manifestObjects } from '../../src/controller/drift/manifest-objects.js';
import { withCorrection, withDrifted, withoutDrifted } from '../../src/controller/status/drift-status.js';
import { statusPatchChangesNothing } from '../../src/controller/status/status-patch.js';
import { dueForResync, seenState, shouldEnqueueOnUpdate } from '../../src/controller/watch/enqueue-policy.js';

const deployment = (over: { image?: string; replicas?: number; labels?: Record<string, string>; extra?: Record<string, unknown> } = {}): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'web',
    namespace: 'shop',
    resourceVersion: '42',
    managedFields: [{ manager: 'helm' }],
    labels: { app: 'web', ...over.labels },
    annotations: { 'deployment.kubernetes.io/revision': '1' },
  },
  spec: {
    replicas: over.replicas ?? 1,
    template: { spec: { containers: [{ name: 'web', image: over.image ?? 'nginx:1', ports: [{ containerPort: 80, protocol: 'TCP' }] }] } },
    ...over.extra,
  },
  status: { readyReplicas: 1 },
});

describe('JSON pointers', () => {
  it.each([
    { pointer: '', tokens: [] },
    { pointer: '/spec/replicas', tokens: ['spec', 'replicas'] },
    { pointer: '/metadata/annotations/a~1b~0c', tokens: ['metadata', 'annotations', 'a/b~c'] },
    { pointer: '/spec/containers/0/image', tokens: ['spec', 'containers', '0', 'image'] },
  ])('$pointer', ({ pointer, tokens }) => {
    expect(parsePointer(pointer)).toEqual(tokens);
    expect(formatPointer(tokens)).toBe(pointer);
  });

  it('reads, writes and removes in objects and arrays; missing steps change nothing', () => {
    const value = { a: { list: [{ x: 1 }, { x: 2 }] } };
    expect(getAt(value, ['a', 'list', '1', 'x'])).toBe(2);
    expect(getAt(value, ['a', 'missing', 'x'])).toBeUndefined();
    expect(getAt(value, ['a', 'list', 'first'])).toBeUndefined();
    expect(setAt(value, ['a', 'list', '0', 'x'], 9)).toBe(true);
    expect(setAt(value, ['a', 'nope', 'x'], 9)).toBe(false);
    removeAt(value, ['a', 'list', '1']);
    removeAt(value, ['a', 'nope', 'x']);
    expect(value).toEqual({ a: { list: [{ x: 9 }] } });
    expect(() => parsePointer('spec/replicas')).toThrow(/must start with \//);
  });
});

describe('drifted fields: live against the dry-run apply of the manifest', () => {
  it.each([
    {
      name: 'nothing differs: server bookkeeping and status are not drift',
      live: deployment(),
      applied: { ...deployment(), status: {} },
      ignore: [],
      want: [],
    },
    {
      name: 'an image edited by hand',
      live: deployment({ image: 'nginx:evil' }),
      applied: deployment(),
      ignore: [],
      want: ['/spec/template/spec/containers/0/image'],
    },
    { name: 'replicas scaled by another manager', live: deployment({ replicas: 5 }), applied: deployment(), ignore: [], want: ['/spec/replicas'] },
    { name: '… unless its path is ignored', live: deployment({ replicas: 5 }), applied: deployment(), ignore: ['/spec/replicas'], want: [] },
    {
      name: 'a label another tool added is not drift; one the manifest sets and someone changed is',
      live: deployment({ labels: { team: 'x', app: 'other' } }),
      applied: deployment(),
      ignore: [],
      want: ['/metadata/labels/app'],
    },
    {
      name: 'a container added by hand changes the list',
      live: deployment({
        extra: {
          template: {
            spec: {
              containers: [
                { name: 'web', image: 'nginx:1' },
                { name: 'sidecar', image: 'x' },
              ],
            },
          },
        },
      }),
      applied: deployment({ extra: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1' }] } } } }),
      ignore: [],
      want: ['/spec/template/spec/containers'],
    },
  ])('$name', ({ live, applied, ignore, want }) => {
    expect(driftedFields(live, applied, ignore)).toEqual(want);
  });

  it('does not change the objects it compares, and keeps at most a bounded list of paths', () => {
    const live = deployment({ replicas: 5 });
    const copy = structuredClone(live);
    driftedFields(live, deployment(), ['/spec/replicas']);
    expect(live).toEqual(copy);
    const many = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i]));
    expect(driftedFields({ ...deployment(), data: many }, { ...deployment(), data: {} })).toHaveLength(MAX_PATHS_PER_OBJECT);
  });
});

describe('ignore rules', () => {
  const rules = [
    { paths: ['/spec/replicas'], target: { kind: 'Deployment' } },
    { paths: ['/data/generated'], target: { kind: 'ConfigMap', name: 'page' } },
    { paths: ['/metadata/annotations/note'] },
  ];
  it.each([
    { kind: 'Deployment', name: 'web', want: ['/spec/replicas', '/metadata/annotations/note'] },
    { kind: 'ConfigMap', name: 'page', want: ['/data/generated', '/metadata/annotations/note'] },
    { kind: 'ConfigMap', name: 'other', want: ['/metadata/annotations/note'] },
  ])('$kind $name', ({ kind, name, want }) => {
    expect(ignoredPaths(rules, { kind, metadata: { name } })).toEqual(want);
  });
  it('no rules: nothing ignored', () => expect(ignoredPaths(undefined, deployment())).toEqual([]));
});

describe('what a correction applies', () => {
  it('keeps the live value of an ignored field the manifest sets, and the manifest for the rest', () => {
    const body = correctionBody(deployment(), deployment({ replicas: 7, image: 'nginx:evil' }), ['/spec/replicas']);
    expect(getAt(body, ['spec', 'replicas'])).toBe(7);
    expect(getAt(body, ['spec', 'template', 'spec', 'containers', '0', 'image'])).toBe('nginx:1');
  });
  it('leaves out an ignored field the live object no longer has, and ignores paths the manifest does not set', () => {
    const live = deployment();
    delete (live.spec as Record<string, unknown>).replicas;
    const body = correctionBody(deployment(), live, ['/spec/replicas', '/spec/paused']);
    expect(getAt(body, ['spec', 'replicas'])).toBeUndefined();
    expect(getAt(body, ['spec', 'paused'])).toBeUndefined();
  });
  it('recreates a deleted object exactly as declared', () => {
    expect(correctionBody(deployment(), undefined, ['/spec/replicas'])).toEqual(deployment());
  });
});

describe('the manifest of a release record', () => {
  const manifest = `---
# Source: unicorn/templates/configmap.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: page
  labels: { app: unicorn }
data:
  mode: 0644
---
# Source: unicorn/templates/empty.yaml
# nothing rendered
---
# Source: unicorn/templates/role.yaml
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: reader
rules: []
`;
  it('gives one object per document, read as helm reads YAML, with helm ownership metadata', () => {
    const objects = manifestObjects(manifest, { name: 'unicorn', namespace: 'web' });
    expect(objects.map(describeObject)).toEqual(['ConfigMap page', 'ClusterRole reader']);
    expect(objects[0]!.data).toEqual({ mode: 420 });
    expect(objects[0]!.metadata.labels).toEqual({ app: 'unicorn', 'app.kubernetes.io/managed-by': 'Helm' });
    expect(objects[1]!.metadata.annotations).toEqual({ 'meta.helm.sh/release-name': 'unicorn', 'meta.helm.sh/release-namespace': 'web' });
  });
  it('refuses a document that is not an object, naming it', () => {
    expect(() => manifestObjects('---\nkind: ConfigMap\n', { name: 'a', namespace: 'b' })).toThrow(ManifestError);
    expect(() => manifestObjects('a: [\n', { name: 'a', namespace: 'b' })).toThrow(/document 1/);
  });
});

describe('checks spread over the interval', () => {
  it('each key gets a phase within the interval, and 1000 keys spread over it', () => {
    const interval = 60_000;
    const buckets = new Array<number>(10).fill(0);
    for (let i = 0; i < 1000; i++) {
      const phase = slotPhaseMs(`team-${i % 7}/release-${i}`, interval);
      expect(phase).toBeGreaterThanOrEqual(0);
      expect(phase).toBeLessThan(interval);
      buckets[Math.floor(phase / 6_000)]! += 1;
    }
    // Uniform would be 100 per tenth of the interval.
    for (const count of buckets) expect(count).toBeGreaterThan(60);
    for (const count of buckets) expect(count).toBeLessThan(140);
  });

  it.each([
    { name: 'a slot passed since the last check', last: 9_000, now: 10_500, want: true },
    { name: 'no slot passed yet', last: 10_100, now: 19_000, want: false },
    { name: 'the next slot reached', last: 10_100, now: 20_000, want: true },
  ])('$name', ({ last, now, want }) => {
    expect(slotPassed(last, now, 10_000, 0)).toBe(want);
  });

  const release = (mode?: 'enabled' | 'warn' | 'disabled'): HelmRelease => ({
    apiVersion: 'helmcrew.dev/v1alpha1',
    kind: 'HelmRelease',
    metadata: { name: 'web', namespace: 'shop', generation: 1 },
    spec: { chart: { repository: 'https://charts.example.org', name: 'web' }, interval: '10s', ...(mode ? { driftDetection: { mode } } : {}) },
    status: { observedGeneration: 1 },
  });

  it('a drift-checked release is due once per interval, at its own phase', () => {
    const phase = slotPhaseMs('shop/web', 10_000);
    const start = 1_000_000_000 + phase;
    // Just after its slot: checked; the next check one interval later, not before.
    expect(dueForResync(release('warn'), start + 1, start - 5)).toBe(true);
    expect(dueForResync(release('warn'), start + 9_000, start + 1)).toBe(false);
    expect(dueForResync(release('warn'), start + 10_001, start + 1)).toBe(true);
    // Without drift detection nothing changes: interval since the last check.
    expect(dueForResync(release(), start + 9_000, start)).toBe(false);
    expect(dueForResync(release(), start + 10_000, start)).toBe(true);
  });
});

describe('drift decisions', () => {
  const report = (n: number) => ({ drifted: Array.from({ length: n }, (_, i) => ({ object: `ConfigMap a/c${i}`, missing: true, fields: [] })) });
  it.each([
    { mode: 'warn', drifted: 0, request: undefined, want: 'none' },
    { mode: 'warn', drifted: 1, request: undefined, want: 'report' },
    { mode: 'warn', drifted: 1, request: 'r1', want: 'correct' },
    { mode: 'enabled', drifted: 1, request: undefined, want: 'correct' },
    { mode: 'disabled', drifted: 1, request: undefined, want: 'none' },
    { mode: 'disabled', drifted: 1, request: 'r1', want: 'correct' },
  ] as const)('$mode, $drifted drifted, request $request → $want', ({ mode, drifted, request, want }) => {
    expect(decideDrift(mode, report(drifted), request)).toBe(want);
  });
  it('disabled costs nothing unless a person asked', () => {
    expect(driftCheckWanted('disabled', undefined)).toBe(false);
    expect(driftCheckWanted('disabled', 'r1')).toBe(true);
    expect(driftCheckWanted('warn', undefined)).toBe(true);
  });
  it('a request is pending until status records its id', () => {
    const annotated = (id: string, handled?: string) =>
      ({
        metadata: { name: 'a', namespace: 'b', annotations: { 'helmcrew.dev/correct-drift-request': id } },
        status: handled ? { lastDriftCorrection: { requestId: handled, revision: 1, succeeded: true, message: '', at: '' } } : {},
      }) as unknown as HelmRelease;
    expect(pendingDriftCorrection(annotated('r1'))).toBe('r1');
    expect(pendingDriftCorrection(annotated('r1', 'r1'))).toBeUndefined();
    expect(pendingDriftCorrection(annotated('r2', 'r1'))).toBe('r2');
  });
  it('messages name the objects and fields', () => {
    const drifted = [
      { object: 'ConfigMap web/page', missing: true, fields: [] },
      { object: 'Deployment web/unicorn', missing: false, fields: ['/spec/template/spec/containers/0/image'] },
    ];
    expect(describeDrift(drifted, 3)).toBe(
      '2 objects differ from revision 3: ConfigMap web/page (deleted); Deployment web/unicorn (/spec/template/spec/containers/0/image)',
    );
    expect(describeCorrection({ corrected: drifted.slice(0, 1), failed: [{ object: 'Secret web/s', error: 'forbidden' }] }, 3)).toBe(
      'Re-applied revision 3 to ConfigMap web/page (deleted); could not correct Secret web/s: forbidden',
    );
  });
});

describe('drift in status', () => {
  const base = { conditions: [{ type: 'Ready', status: 'True' as const, reason: 'InSync', message: 'ok', lastTransitionTime: 'T0' }] };
  it('Drifted is present only while drifted; the same drift again changes nothing', () => {
    const now = new Date('2026-11-22T00:00:00Z');
    const drifted = withDrifted(base, '1 object differs', now, 1);
    expect(drifted.conditions?.find((c) => c.type === 'Drifted')).toMatchObject({ status: 'True', reason: 'DriftDetected', message: '1 object differs' });
    expect(statusPatchChangesNothing(drifted, withDrifted(drifted, '1 object differs', new Date('2026-11-22T01:00:00Z'), 1))).toBe(true);
    expect(withoutDrifted(drifted).conditions?.map((c) => c.type)).toEqual(['Ready']);
    expect(statusPatchChangesNothing(base, withoutDrifted(base))).toBe(true);
  });
  it('a correction records itself and clears Drifted when it succeeded', () => {
    const now = new Date();
    const record = { requestId: 'r1', revision: 2, succeeded: true, message: 'Re-applied', at: now.toISOString() };
    const drifted = withDrifted(base, 'x', now, 1);
    expect(withCorrection(drifted, record, now, 1)).toMatchObject({ lastDriftCorrection: record });
    expect(withCorrection(drifted, record, now, 1).conditions?.some((c) => c.type === 'Drifted')).toBe(false);
    expect(withCorrection(base, { ...record, succeeded: false }, now, 1).conditions?.some((c) => c.type === 'Drifted')).toBe(true);
  });
  it('a correction request enqueues the release', () => {
    const before = seenState({ metadata: { name: 'a', namespace: 'b', generation: 1 } } as HelmRelease);
    const after = seenState({
      metadata: { name: 'a', namespace: 'b', generation: 1, annotations: { 'helmcrew.dev/correct-drift-request': 'r1' } },
    } as unknown as HelmRelease);
    expect(shouldEnqueueOnUpdate(before, after)).toBe(true);
  });
});
