import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../src/api/duration.js';
import { ConfigError } from '../../src/core/config/env.js';
import { readControllerConfig } from '../../src/controller/config.js';
import { helmProcessEnv } from '../../src/controller/helm/helm-process-env.js';
import { pickChartVersion, ChartNotFoundError } from '../../src/controller/charts/repository-index.js';
import { summarizeStderr } from '../../src/controller/helm/helm-error.js';
import { decodeReleaseRecord } from '../../src/core/helm-storage/release-storage.js';
import { retryDelayMs } from '../../src/controller/queue/retry-policy.js';
import { canonicalJson, mergeValues } from '../../src/core/release/values.js';
import { parseValuesText } from '../../src/controller/reconcile/desired/values-from.js';
import { setCondition } from '../../src/controller/status/conditions.js';
import { dueForResync, shouldEnqueueOnUpdate } from '../../src/controller/watch/enqueue-policy.js';

describe('parseDuration', () => {
  it.each([
    ['30s', 30_000],
    ['5m', 300_000],
    ['1h30m', 5_400_000],
    ['1.5h', 5_400_000],
    ['250ms', 250],
  ])('%s → %i ms', (text, ms) => expect(parseDuration(text)).toBe(ms));
  it.each(['', '5', 'ten minutes', '5m garbage', '-1s'])('refuses %j', (text) => expect(() => parseDuration(text)).toThrow(/not a duration/));
});

describe('mergeValues and canonicalJson', () => {
  it('merges maps, replaces lists and scalars, like helm', () => {
    expect(mergeValues({ a: { b: 1, c: [1, 2] }, d: 'x' }, { a: { c: [3] }, d: { e: 1 } })).toEqual({ a: { b: 1, c: [3] }, d: { e: 1 } });
  });
  it('merges a "__proto__" key as a key, not a prototype', () => {
    const added = mergeValues({}, JSON.parse('{"__proto__":{"b":2}}'));
    expect(Object.keys(added)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(added)).toBe(Object.prototype);
    const merged = mergeValues(JSON.parse('{"__proto__":{"a":1}}'), JSON.parse('{"__proto__":{"b":2}}'));
    expect(canonicalJson(merged)).toBe('{"__proto__":{"a":1,"b":2}}');
  });
  it('is independent of key order', () => {
    expect(canonicalJson({ b: 1, a: { d: 2, c: 3 } })).toBe(canonicalJson({ a: { c: 3, d: 2 }, b: 1 }));
  });
});

describe('parseValuesText', () => {
  const ref = { kind: 'ConfigMap' as const, name: 'v' };
  it('reads a YAML map', () => expect(parseValuesText('color: pink\n', ref)).toEqual({ color: 'pink' }));
  it('treats an empty document as no values', () => expect(parseValuesText('', ref)).toEqual({}));
  it('names the source of broken YAML, not its content', () =>
    expect(() => parseValuesText('color: [pink\n', ref)).toThrow(/ConfigMap\/v key values.yaml is not valid YAML/));
  it('refuses a list', () => expect(() => parseValuesText('- a\n', ref)).toThrow(/must hold a YAML map/));
});

describe('pickChartVersion', () => {
  const versions = ['1.0.0', '2.0.0', '2.1.0', '3.0.0', '4.0.0+build.1', 'not-semver'];
  const index = (chart: string) => (chart === 'unicorn' ? versions : undefined);
  it.each([
    [undefined, '4.0.0+build.1'],
    ['2.x', '2.1.0'],
    ['^1.0.0', '1.0.0'],
    ['2.0.0', '2.0.0'],
    ['v2.0.0', '2.0.0'],
    ['4.0.0', '4.0.0+build.1'],
    ['4.0.0+build.1', '4.0.0+build.1'],
  ])('%s → %s', (constraint, want) => expect(pickChartVersion(index('unicorn'), 'unicorn', constraint)).toBe(want));
  it.each([
    ['unicorn', '9.9.9', /has no version 9.9.9/],
    ['unicorn', '7.x', /no version matching 7.x/],
    ['narwhal', undefined, /not in the repository index/],
  ])('%s %s is ChartNotFound', (chart, constraint, want) => {
    expect(() => pickChartVersion(index(chart), chart, constraint)).toThrow(ChartNotFoundError);
    expect(() => pickChartVersion(index(chart), chart, constraint)).toThrow(want);
  });
});

describe('decodeReleaseRecord', () => {
  it('reads what helm stores: base64 of base64 of gzip of JSON', () => {
    const payload = {
      name: 'unicorn',
      namespace: 'web',
      version: 3,
      config: { color: 'green' },
      info: { status: 'deployed', last_deployed: '2026-11-22T00:00:00Z' },
      chart: { metadata: { name: 'unicorn', version: '3.0.0', appVersion: '3.0.0' } },
    };
    const helmText = gzipSync(Buffer.from(JSON.stringify(payload))).toString('base64');
    const secretData = Buffer.from(helmText).toString('base64');
    expect(decodeReleaseRecord(secretData)).toMatchObject({ revision: 3, status: 'deployed', chartVersion: '3.0.0', config: { color: 'green' } });
  });
});

describe('summarizeStderr', () => {
  it('keeps the Error: lines and drops warnings', () => {
    expect(summarizeStderr('WARNING: kubeconfig is group-readable\nError: UPGRADE FAILED: port out of range\n')).toBe(
      'Error: UPGRADE FAILED: port out of range',
    );
  });
  it('keeps the details helm prints after the Error: line', () => {
    expect(summarizeStderr("Error: INSTALLATION FAILED: values don't meet the specifications:\nunicorn:\n- at '/color': does not match pattern\n")).toBe(
      "Error: INSTALLATION FAILED: values don't meet the specifications: unicorn: - at '/color': does not match pattern",
    );
  });
  it('says so when helm printed nothing', () => expect(summarizeStderr('')).toBe('(no output)'));
});

describe('setCondition', () => {
  const t0 = new Date('2026-11-22T00:00:00Z');
  const t1 = new Date('2026-11-22T01:00:00Z');
  it('keeps lastTransitionTime when the status stays the same', () => {
    const first = setCondition([], { type: 'Ready', status: 'True', reason: 'InstallSucceeded', message: 'a' }, t0, 1);
    const second = setCondition(first, { type: 'Ready', status: 'True', reason: 'UpgradeSucceeded', message: 'b' }, t1, 2);
    expect(second).toEqual([
      { type: 'Ready', status: 'True', reason: 'UpgradeSucceeded', message: 'b', lastTransitionTime: t0.toISOString(), observedGeneration: 2 },
    ]);
    const third = setCondition(second, { type: 'Ready', status: 'False', reason: 'UpgradeFailed', message: 'c' }, t1, 3);
    expect(third[0]?.lastTransitionTime).toBe(t1.toISOString());
  });
});

describe('watch policy', () => {
  it.each([
    { name: 'first sight', prev: undefined, next: { generation: 1, deleting: false }, want: true },
    { name: 'status-only update', prev: { generation: 1, deleting: false }, next: { generation: 1, deleting: false }, want: false },
    { name: 'spec change', prev: { generation: 1, deleting: false }, next: { generation: 2, deleting: false }, want: true },
    { name: 'deletion', prev: { generation: 1, deleting: false }, next: { generation: 1, deleting: true }, want: true },
    { name: 'reconcile requested', prev: { generation: 1, deleting: false }, next: { generation: 1, deleting: false, requestedAt: 'now' }, want: true },
    { name: '/release test asked for', prev: { generation: 1, deleting: false }, next: { generation: 1, deleting: false, testRequest: 'ts-1' }, want: true },
  ])('$name → enqueue $want', ({ prev, next, want }) => expect(shouldEnqueueOnUpdate(prev, next)).toBe(want));

  const base = { apiVersion: 'helmcrew.dev/v1alpha1' as const, kind: 'HelmRelease' as const, metadata: { name: 'u', namespace: 'n', generation: 2 } };
  const now = Date.parse('2026-11-22T00:10:00Z');
  const upgrading = {
    observedGeneration: 1,
    lastAttemptedGeneration: 2,
    conditions: [{ type: 'Reconciling', status: 'True' as const, reason: 'Upgrading', message: '', lastTransitionTime: '2026-11-22T00:00:00Z' }],
  };
  it.each([
    { name: 'never checked', spec: {}, status: undefined, want: true },
    { name: 'checked 10m ago, interval 10m', spec: {}, status: { observedGeneration: 2, lastReconciledAt: '2026-11-22T00:00:00Z' }, want: true },
    { name: 'checked 1m ago', spec: {}, status: { observedGeneration: 2, lastReconciledAt: '2026-11-22T00:09:00Z' }, want: false },
    {
      name: 'checked 1m ago, but a newer generation is not done',
      spec: {},
      status: { observedGeneration: 1, lastReconciledAt: '2026-11-22T00:09:00Z' },
      want: true,
    },
    { name: 'upgrade for it started 1m ago (timeout 5m)', spec: {}, status: { ...upgrading, lastAttemptedAt: '2026-11-22T00:09:00Z' }, want: false },
    { name: 'upgrade for it started 7m ago: its worker is gone', spec: {}, status: { ...upgrading, lastAttemptedAt: '2026-11-22T00:03:00Z' }, want: true },
    { name: 'suspended', spec: { suspend: true }, status: undefined, want: false },
    {
      name: 'suspended with a rollback not done yet',
      spec: { suspend: true },
      status: undefined,
      annotations: { 'helmcrew.dev/rollback-request': 'r1' },
      want: true,
    },
    {
      name: 'suspended, the rollback done',
      spec: { suspend: true },
      status: { rollback: { requestId: 'r1', succeeded: true, message: '', at: '' } },
      annotations: { 'helmcrew.dev/rollback-request': 'r1' },
      want: false,
    },
  ])('$name → due $want', ({ spec, status, want, ...rest }) => {
    const annotations = 'annotations' in rest ? rest.annotations : undefined;
    expect(
      dueForResync(
        { ...base, metadata: { ...base.metadata, annotations }, spec: { chart: { repository: 'https://x.test', name: 'u' }, ...spec }, status },
        now,
      ),
    ).toBe(want);
  });
});

describe('retryDelayMs', () => {
  it('doubles from a second up to a minute', () => {
    expect([1, 2, 3, 4, 7, 8, 20].map((n) => retryDelayMs(n))).toEqual([1000, 2000, 4000, 8000, 60_000, 60_000, 60_000]);
  });
});

describe('helmProcessEnv', () => {
  it("sets GOGC only when one is chosen, beside helm's folders and the kubeconfig", () => {
    expect(helmProcessEnv({ workDir: '/w', goGC: '200' })).toEqual({
      HELM_CACHE_HOME: '/w/helm/cache',
      HELM_CONFIG_HOME: '/w/helm/config',
      HELM_DATA_HOME: '/w/helm/data',
      KUBECACHEDIR: '/w/kube/cache',
      DOCKER_CONFIG: '/w/helm/no-docker-config',
      GOGC: '200',
    });
    const inherited = helmProcessEnv({ workDir: '/w', kubeconfig: '/k' });
    expect(inherited.KUBECONFIG).toBe('/k');
    expect(inherited).not.toHaveProperty('GOGC');
  });
});

describe('readControllerConfig', () => {
  it.each([
    [{}, /REDIS_URL is not set/],
    [{ REDIS_URL: 'localhost:6379' }, /REDIS_URL must start with redis:\/\//],
    [{ REDIS_URL: 'redis://x', HELMCREW_CONCURRENCY: 'lots' }, /HELMCREW_CONCURRENCY must be a positive whole number, got "lots"/],
  ])('%j → %s', (env, want) => {
    expect(() => readControllerConfig(env)).toThrow(ConfigError);
    expect(() => readControllerConfig(env)).toThrow(want);
  });
  it("leaves helm Go's GOGC unless told otherwise, and refuses what Go would not read", () => {
    const base = { REDIS_URL: 'redis://x' };
    expect(readControllerConfig(base).helmGoGC).toBeUndefined();
    expect(readControllerConfig({ ...base, HELMCREW_HELM_GOGC: '200' }).helmGoGC).toBe('200');
    expect(readControllerConfig({ ...base, HELMCREW_HELM_GOGC: '400' }).helmGoGC).toBe('400');
    expect(readControllerConfig({ ...base, HELMCREW_HELM_GOGC: 'off' }).helmGoGC).toBe('off');
    expect(readControllerConfig({ ...base, HELMCREW_HELM_GOGC: 'default' }).helmGoGC).toBeUndefined();
    for (const bad of ['0', '-5', '2OO', '200%', ' 200']) {
      expect(() => readControllerConfig({ ...base, HELMCREW_HELM_GOGC: bad })).toThrow(
        `HELMCREW_HELM_GOGC must be a whole number of percent (e.g. 200), "off" or "default", got "${bad}"`,
      );
    }
  });
  it("shares a node's helm slots only when told the node: one replica's concurrency by default, or HELMCREW_NODE_HELM_SLOTS", () => {
    const base = { REDIS_URL: 'redis://x' };
    expect(readControllerConfig(base).nodeHelmSlots).toBeUndefined();
    expect(readControllerConfig({ ...base, HELMCREW_NODE_NAME: '' }).nodeHelmSlots).toBeUndefined();
    expect(readControllerConfig({ ...base, HELMCREW_NODE_NAME: 'worker-1.eu', HELMCREW_CONCURRENCY: '6' }).nodeHelmSlots).toEqual({
      node: 'worker-1.eu',
      limit: 6,
    });
    expect(readControllerConfig({ ...base, HELMCREW_NODE_NAME: 'worker-1', HELMCREW_NODE_HELM_SLOTS: '2' }).nodeHelmSlots).toEqual({
      node: 'worker-1',
      limit: 2,
    });
    expect(() => readControllerConfig({ ...base, HELMCREW_NODE_NAME: 'Worker 1' })).toThrow(
      `HELMCREW_NODE_NAME must be a node's name (lower-case letters, digits, '-' and '.'; the chart sets the pod's spec.nodeName), got "Worker 1"`,
    );
    expect(() => readControllerConfig({ ...base, HELMCREW_NODE_NAME: 'w1', HELMCREW_NODE_HELM_SLOTS: '0' })).toThrow(
      'HELMCREW_NODE_HELM_SLOTS must be a positive whole number, got "0"',
    );
  });
  it('never echoes the Redis password', () => {
    expect(() => readControllerConfig({ REDIS_URL: 'http://user:s3cret@host' })).toThrow(/^(?!.*s3cret)/);
  });
});
