import { describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import type { Condition, HelmReleaseStatus } from '../../src/api/helmrelease-status.js';
import { FINALIZER } from '../../src/api/vocabulary.js';
import { summarizeHistory, withSupersededFromStatus, type ReleaseHistory, type StoredRelease } from '../../src/core/helm-storage/release-storage.js';
import { FreshReadNeeded, looksSettled, passContext } from '../../src/controller/reconcile/ports/cached-read.js';
import type { ControllerContext } from '../../src/controller/reconcile/ports/context.js';
import { KubeApiError } from '../../src/core/kube/api-error.js';
import type { DesiredRelease } from '../../src/core/release/desired-release.js';
import { checkedStatus, historyFromStorage, inSyncStatus } from '../../src/controller/status/release-status.js';
import { failureAlreadyReported, statusPatchChangesNothing } from '../../src/controller/status/status-patch.js';
import { dueForResync } from '../../src/controller/watch/enqueue-policy.js';
import { jobPriority, RESYNC_PRIORITY } from '../../src/controller/queue/reconcile-queue.js';

const T0 = '2026-11-22T00:00:00.000Z';
const ready = (over: Partial<Condition> = {}): Condition => ({
  type: 'Ready',
  status: 'True',
  reason: 'UpgradeSucceeded',
  message: 'ok',
  lastTransitionTime: T0,
  observedGeneration: 2,
  ...over,
});
const released: Condition = { type: 'Released', status: 'True', reason: 'UpgradeSucceeded', message: 'ok', lastTransitionTime: T0, observedGeneration: 2 };
const reconciling: Condition = {
  type: 'Reconciling',
  status: 'True',
  reason: 'Upgrading',
  message: 'Upgrading unicorn@2.0.0',
  lastTransitionTime: T0,
  observedGeneration: 2,
};
const historyEntry = { revision: 2, chartName: 'unicorn', chartVersion: '2.0.0', valuesDigest: 'd', status: 'deployed', deployedAt: T0 };
const settledStatus: HelmReleaseStatus = {
  observedGeneration: 2,
  conditions: [released, ready()],
  history: [historyEntry],
  lastAttemptFailed: false,
  lastReconciledAt: T0,
};

describe('statusPatchChangesNothing', () => {
  it.each([
    { name: 'only lastReconciledAt moves', current: settledStatus, patch: { lastReconciledAt: '2026-11-22T01:00:00Z' }, want: true },
    {
      name: 'same fields, conditions in another order',
      current: settledStatus,
      patch: { observedGeneration: 2, conditions: [ready(), released], history: [historyEntry], lastAttemptFailed: false, lastReconciledAt: 'later' },
      want: true,
    },
    { name: 'a new observedGeneration', current: settledStatus, patch: { observedGeneration: 3, lastReconciledAt: 'later' }, want: false },
    { name: 'a condition observes a new generation', current: settledStatus, patch: { conditions: [released, ready({ observedGeneration: 3 })] }, want: false },
    { name: 'a condition changes reason', current: settledStatus, patch: { conditions: [released, ready({ reason: 'InSync' })] }, want: false },
    { name: 'a condition changes message', current: settledStatus, patch: { conditions: [released, ready({ message: 'other' })] }, want: false },
    {
      name: 'a condition changes transition time',
      current: settledStatus,
      patch: { conditions: [released, ready({ lastTransitionTime: '2026-11-22T02:00:00Z' })] },
      want: false,
    },
    {
      name: 'a condition is removed (Reconciling done)',
      current: { ...settledStatus, conditions: [released, ready(), reconciling] },
      patch: { conditions: [released, ready()] },
      want: false,
    },
    { name: 'a condition is added', current: settledStatus, patch: { conditions: [released, ready(), reconciling] }, want: false },
    { name: 'history gains a revision', current: settledStatus, patch: { history: [{ ...historyEntry, revision: 3 }, historyEntry] }, want: false },
    { name: 'a field not there before', current: settledStatus, patch: { failures: 0 }, want: false },
    { name: 'no status yet', current: undefined, patch: { observedGeneration: 1 }, want: false },
    { name: 'no status yet, bookkeeping only', current: undefined, patch: { lastReconciledAt: T0 }, want: true },
  ])('$name → no-op $want', ({ current, patch, want }) => {
    expect(statusPatchChangesNothing(current, patch as HelmReleaseStatus)).toBe(want);
  });

  // The builders the reconciler uses for a periodic check produce a no-op on a settled release.
  const release: HelmRelease = {
    apiVersion: 'helmcrew.dev/v1alpha1',
    kind: 'HelmRelease',
    metadata: { name: 'u', namespace: 'n', generation: 2, finalizers: [FINALIZER] },
    spec: { chart: { repository: 'https://x.test', name: 'unicorn', version: '2.0.0' } },
    status: settledStatus,
  };
  const stored: StoredRelease = {
    name: 'u',
    namespace: 'n',
    revision: 2,
    status: 'deployed',
    chartName: 'unicorn',
    chartVersion: '2.0.0',
    config: {},
    lastDeployed: T0,
    valuesDigest: 'd',
  };
  const history: ReleaseHistory = { releases: [stored], latest: stored, deployed: stored };
  const desired: DesiredRelease = { chartName: 'unicorn', chartVersion: '2.0.0', values: {}, valuesDigest: 'd', secrets: [] as never };
  it('inSyncStatus on a settled release an hour later is a no-op', () => {
    expect(statusPatchChangesNothing(release.status, inSyncStatus(release, desired, history, new Date('2026-11-22T01:00:00Z')))).toBe(true);
  });
  it('inSyncStatus after a new generation is written', () => {
    const bumped = { ...release, metadata: { ...release.metadata, generation: 3 } };
    expect(statusPatchChangesNothing(bumped.status, inSyncStatus(bumped, desired, history, new Date('2026-11-22T01:00:00Z')))).toBe(false);
  });
  it('inSyncStatus when the stored history changed is written', () => {
    const older: StoredRelease = { ...stored, revision: 1, status: 'superseded' };
    const longer: ReleaseHistory = { ...history, releases: [stored, older] };
    expect(statusPatchChangesNothing(release.status, inSyncStatus(release, desired, longer, new Date('2026-11-22T01:00:00Z')))).toBe(false);
  });
  it('checkedStatus alone is a no-op', () => expect(statusPatchChangesNothing(settledStatus, checkedStatus(new Date()))).toBe(true));
});

describe('looksSettled', () => {
  const base: HelmRelease = {
    apiVersion: 'helmcrew.dev/v1alpha1',
    kind: 'HelmRelease',
    metadata: { name: 'u', namespace: 'n', generation: 2, finalizers: [FINALIZER] },
    spec: { chart: { repository: 'https://x.test', name: 'unicorn' } },
    status: settledStatus,
  };
  it.each([
    { name: 'reconciled and Ready', release: base, want: true },
    { name: 'spec changed (generation ahead)', release: { ...base, metadata: { ...base.metadata, generation: 3 } }, want: false },
    { name: 'no status', release: { ...base, status: undefined }, want: false },
    { name: 'no finalizer yet', release: { ...base, metadata: { ...base.metadata, finalizers: [] } }, want: false },
    { name: 'being deleted', release: { ...base, metadata: { ...base.metadata, deletionTimestamp: T0 } }, want: false },
    { name: 'suspended', release: { ...base, spec: { ...base.spec, suspend: true } }, want: false },
    { name: 'Ready False', release: { ...base, status: { ...settledStatus, conditions: [ready({ status: 'False' })] } }, want: false },
    { name: 'Ready for an older generation', release: { ...base, status: { ...settledStatus, conditions: [ready({ observedGeneration: 1 })] } }, want: false },
    { name: 'Reconciling True', release: { ...base, status: { ...settledStatus, conditions: [ready(), reconciling] } }, want: false },
  ])('$name → $want', ({ release, want }) => expect(looksSettled(release)).toBe(want));
});

/** A controller context of recorders: each call is logged by port and method. */
function recordingContext(calls: string[], conflict = false): ControllerContext {
  const rec =
    (name: string) =>
    async (...args: unknown[]) => {
      calls.push(`${name}${args.length ? ` ${JSON.stringify(args)}` : ''}`);
      if (conflict && name.startsWith('api.') && name !== 'api.get' && name !== 'api.list') throw new KubeApiError(409, { reason: 'Conflict' }, 'PATCH', '/x');
      return name === 'api.patchStatus' ? { metadata: {}, status: {} } : name;
    };
  return {
    api: {
      get: rec('api.get'),
      list: rec('api.list'),
      patchStatus: rec('api.patchStatus'),
      addFinalizer: rec('api.addFinalizer'),
      removeFinalizer: rec('api.removeFinalizer'),
    },
    storage: { history: rec('storage.history'), markFailed: rec('storage.markFailed') },
    helm: { upgrade: rec('helm.upgrade'), pullChart: rec('helm.pullChart') },
    events: { record: rec('events.record') },
    charts: { resolveChart: rec('charts.resolveChart') },
  } as unknown as ControllerContext;
}
const copy = { metadata: { name: 'u', namespace: 'n', resourceVersion: '41' } } as HelmRelease;

describe("a settled cached pass's ports", () => {
  const calls: string[] = [];
  const pass = passContext(recordingContext(calls), 'cache', copy);

  it.each([
    ['api.get', () => pass.api.get('n', 'u')],
    ['api.list', () => pass.api.list('n')],
    ['storage.history', () => pass.storage.history('n', 'u')],
    ['charts.resolveChart', () => pass.charts.resolveChart({} as never, {} as never, 0)],
  ])('lets %s through', async (name, call) => {
    await expect(call()).resolves.toBe(name);
  });
  it.each([
    ['api.patchStatus', () => pass.releaseWrites().patchStatus(copy, {})],
    ['api.addFinalizer', () => pass.releaseWrites().addFinalizer(copy)],
    ['storage.markFailed', () => pass.effects().storage.markFailed('n', 'u', 1, 'x', new Date())],
    ['helm.upgrade', () => pass.effects().helm.upgrade({} as never)],
    ['helm.pullChart', () => pass.helm.pullChart({} as never)],
    ['events.record', () => pass.effects().events.record(copy, 'Stalled', 'x')],
    ['the status writer', () => pass.status.write(copy, {})],
  ])('stops %s before it runs', async (_name, call) => {
    const before = calls.length;
    await expect((async () => call())()).rejects.toBeInstanceOf(FreshReadNeeded);
    expect(calls.length).toBe(before);
  });
});

describe("a cache-until-write pass's ports", () => {
  it('lets reads and the chart download through, and stops any other effect before the first write', async () => {
    const calls: string[] = [];
    const pass = passContext(recordingContext(calls), 'cache-until-write', copy);
    await pass.api.get('n', 'u');
    await pass.storage.history('n', 'u');
    await pass.helm.pullChart({} as never);
    for (const call of [
      () => pass.effects().helm.upgrade({} as never),
      () => pass.effects().events.record(copy, 'Stalled', 'x'),
      () => pass.effects().storage.markFailed('n', 'u', 1, 'x', new Date()),
      () => pass.releaseWrites().removeFinalizer(copy),
    ]) {
      expect(call).toThrow(FreshReadNeeded);
    }
    expect(calls).toEqual(['api.get ["n","u"]', 'storage.history ["n","u"]', 'helm.pullChart [{}]']);
  });

  it("makes the first write conditional on the copy's version, then lets everything through unconditionally", async () => {
    const calls: string[] = [];
    const pass = passContext(recordingContext(calls), 'cache-until-write', copy);
    await pass.status.write(copy, { observedGeneration: 1 });
    await pass.effects().events.record(copy, 'Stalled', 'x');
    await pass.effects().helm.upgrade({} as never);
    await pass.status.write(copy, { observedGeneration: 2 });
    const release = JSON.stringify(copy);
    expect(calls).toEqual([
      `api.patchStatus [${release},{"observedGeneration":1},{"resourceVersion":"41"}]`,
      `events.record [${release},"Stalled","x"]`,
      'helm.upgrade [{}]',
      `api.patchStatus [${release},{"observedGeneration":2}]`,
    ]);
  });

  it('turns a conflict on the first write into FreshReadNeeded, and stays locked', async () => {
    const pass = passContext(recordingContext([], true), 'cache-until-write', copy);
    await expect(pass.releaseWrites().addFinalizer(copy)).rejects.toBeInstanceOf(FreshReadNeeded);
    expect(() => pass.effects().helm.upgrade({} as never)).toThrow(FreshReadNeeded);
  });
});

describe('dueForResync with the check ledger', () => {
  const now = Date.parse('2026-11-22T00:10:00Z');
  const release = (status: HelmReleaseStatus | undefined): HelmRelease => ({
    apiVersion: 'helmcrew.dev/v1alpha1',
    kind: 'HelmRelease',
    metadata: { name: 'u', namespace: 'n', generation: 2 },
    spec: { chart: { repository: 'https://x.test', name: 'u' }, interval: '5m' },
    status,
  });
  it.each([
    { name: 'written 10m ago, quietly checked 1m ago', status: { observedGeneration: 2, lastReconciledAt: T0 }, checked: '2026-11-22T00:09:00Z', want: false },
    { name: 'written 10m ago, quietly checked 6m ago', status: { observedGeneration: 2, lastReconciledAt: T0 }, checked: '2026-11-22T00:04:00Z', want: true },
    {
      name: 'written 1m ago, ledger older (another replica)',
      status: { observedGeneration: 2, lastReconciledAt: '2026-11-22T00:09:00Z' },
      checked: T0,
      want: false,
    },
    { name: 'never written, checked 1m ago', status: { observedGeneration: 2 }, checked: '2026-11-22T00:09:00Z', want: false },
    { name: 'written 10m ago, not in the ledger (Redis wiped)', status: { observedGeneration: 2, lastReconciledAt: T0 }, checked: undefined, want: true },
    {
      name: 'checked 1m ago, but a newer generation is not done',
      status: { observedGeneration: 1, lastReconciledAt: T0 },
      checked: '2026-11-22T00:09:00Z',
      want: true,
    },
  ])('$name → due $want', ({ status, checked, want }) => {
    expect(dueForResync(release(status), now, checked ? Date.parse(checked) : undefined)).toBe(want);
  });
});

describe('failureAlreadyReported', () => {
  const failing = (over: Partial<Condition> = {}, observedGeneration = 2) => ({
    metadata: { generation: 2 },
    status: { observedGeneration, conditions: [ready({ status: 'False', reason: 'ValuesInvalid', message: 'ConfigMap v is missing', ...over })] },
  });
  it.each([
    { name: 'same reason, message and generation', release: failing(), want: true },
    { name: 'another message (a different problem)', release: failing({ message: 'ConfigMap w is missing' }), want: false },
    { name: 'another reason', release: failing({ reason: 'RepositoryNotAllowed' }), want: false },
    { name: 'reported for an older generation', release: failing({ observedGeneration: 1 }, 1), want: false },
    { name: 'Ready is True', release: failing({ status: 'True' }), want: false },
    { name: 'no status', release: { metadata: { generation: 2 } }, want: false },
  ])('$name → $want', ({ release, want }) => expect(failureAlreadyReported(release as never, 'ValuesInvalid', 'ConfigMap v is missing')).toBe(want));
});

describe('jobPriority', () => {
  it.each([
    { reason: 'resync', want: RESYNC_PRIORITY },
    { reason: 'update', want: undefined },
    { reason: 'add', want: undefined },
  ])('$reason → $want', ({ reason, want }) => expect(jobPriority(reason)).toBe(want));
});

describe('withSupersededFromStatus', () => {
  const record = (revision: number, status: StoredRelease['status'], version: string): StoredRelease => ({
    name: 'u',
    namespace: 'n',
    revision,
    status,
    chartName: 'unicorn',
    chartVersion: version,
    config: { v: version },
    lastDeployed: `2026-11-22T0${revision}:00:00Z`,
    valuesDigest: `d${revision}`,
  });
  const full = summarizeHistory([record(3, 'deployed', '3.0.0'), record(2, 'superseded', '2.0.0'), record(1, 'superseded', '1.0.0')]);
  const statusHistory = historyFromStorage(full);
  const newest = summarizeHistory([record(3, 'deployed', '3.0.0')]);

  it('completes the newest records with the superseded ones status lists: the status written would be the same', () => {
    expect(historyFromStorage(withSupersededFromStatus(newest, statusHistory))).toEqual(statusHistory);
  });
  it('keeps latest and deployed from storage', () => {
    const merged = withSupersededFromStatus(newest, statusHistory);
    expect({ latest: merged.latest?.revision, deployed: merged.deployed?.revision }).toEqual({ latest: 3, deployed: 3 });
  });
  it('a newer record in storage than status knows shows up as a difference', () => {
    const withFailed = summarizeHistory([record(4, 'failed', '4.0.0'), record(3, 'deployed', '3.0.0')]);
    expect(historyFromStorage(withSupersededFromStatus(withFailed, statusHistory))).not.toEqual(statusHistory);
  });
  it.each([
    { name: 'nothing stored', current: summarizeHistory([]), want: 0 },
    { name: 'status lists no superseded revision', current: newest, history: [statusHistory[0]!], want: 1 },
  ])('$name → $want records', ({ current, history, want }) => {
    expect(withSupersededFromStatus(current, history ?? statusHistory).releases.length).toBe(want);
  });
});
