import { describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { FINALIZER } from '../../src/api/vocabulary.js';
import { ROLLBACK_REQUEST_ANNOTATION, SUSPENSION_ANNOTATION } from '../../src/api/annotations.js';
import { summarizeHistory, type StoredRelease } from '../../src/core/helm-storage/release-storage.js';
import { determineLifecycle, needsFinalizer, nextLifecycleAction } from '../../src/controller/reconcile/decide/lifecycle-state.js';
import { determineReleaseState, nextAction } from '../../src/controller/reconcile/decide/release-state.js';
import { pendingLeftByRollback } from '../../src/controller/reconcile/decide/rollback-left-pending.js';
import type { DesiredRelease } from '../../src/core/release/desired-release.js';
import { OWNER_NAME_LABEL, OWNER_NAMESPACE_LABEL, TIMEOUT_LABEL } from '../../src/controller/reconcile/decide/ownership.js';
import { SecretValues } from '../../src/core/release/secret-values.js';
import { ValuesDigester } from '../../src/core/release/values-digest.js';

const digester = new ValuesDigester(Buffer.alloc(32, 7));

const release = (over: { spec?: Partial<HelmRelease['spec']>; meta?: Partial<HelmRelease['metadata']>; status?: HelmRelease['status'] } = {}): HelmRelease => ({
  apiVersion: 'helmcrew.dev/v1alpha1',
  kind: 'HelmRelease',
  metadata: { name: 'unicorn', namespace: 'web', generation: 3, finalizers: [FINALIZER], ...over.meta },
  spec: { chart: { repository: 'https://charts.example.test', name: 'unicorn', version: '2.0.0' }, ...over.spec },
  status: over.status,
});

// Records as helmcrew writes them for this HelmRelease (web/unicorn): labelled with their owner.
const stored = (
  revision: number,
  status: StoredRelease['status'],
  chartVersion = '2.0.0',
  config: Record<string, unknown> = { color: 'blue' },
): StoredRelease => ({
  name: 'unicorn',
  namespace: 'web',
  revision,
  status,
  chartName: 'unicorn',
  chartVersion,
  config,
  labels: { owner: 'helm', 'helmcrew.dev/owner-namespace': 'web', 'helmcrew.dev/owner-name': 'unicorn' },
});
const unlabelled = (revision: number, status: StoredRelease['status']): StoredRelease => ({ ...stored(revision, status), labels: { owner: 'helm' } });

const desired: DesiredRelease = {
  chartName: 'unicorn',
  chartVersion: '2.0.0',
  values: { color: 'blue' },
  valuesDigest: digester.digest({ color: 'blue' }),
  secrets: new SecretValues(),
};
const clock = { now: new Date('2026-11-22T12:00:00Z'), timeoutSeconds: 300 };
const pendingSince = (iso: string) => ({ ...stored(2, 'pending-upgrade'), lastDeployed: iso });
const failedAttempt = {
  lastAttemptFailed: true,
  lastAttemptedGeneration: 3,
  lastAttemptedChartVersion: '2.0.0',
  lastAttemptedValuesDigest: desired.valuesDigest,
};

describe('determineReleaseState → nextAction', () => {
  it.each([
    { name: 'nothing stored', given: { history: [] }, want: ['not-installed', 'install'] },
    { name: 'only an uninstalled record', given: { history: [stored(1, 'uninstalled')] }, want: ['not-installed', 'install'] },
    { name: 'deployed and equal', given: { history: [stored(2, 'deployed'), stored(1, 'superseded')] }, want: ['in-sync', 'report-ready'] },
    { name: 'values key order differs', given: { history: [stored(1, 'deployed', '2.0.0', { color: 'blue' })] }, want: ['in-sync', 'report-ready'] },
    { name: 'new chart version', given: { history: [stored(1, 'deployed', '1.0.0')] }, want: ['out-of-sync', 'upgrade'] },
    { name: 'values changed', given: { history: [stored(1, 'deployed', '2.0.0', { color: 'pink' })] }, want: ['out-of-sync', 'upgrade'] },
    {
      name: 'helm upgrading for 1 minute (timeout 5m)',
      given: { history: [pendingSince('2026-11-22T11:59:00Z'), stored(1, 'deployed')] },
      want: ['locked', 'wait-for-lock'],
    },
    {
      name: 'pending for 6 minutes: its helm is gone',
      given: { history: [pendingSince('2026-11-22T11:54:00Z'), stored(1, 'deployed')] },
      want: ['stale-lock', 'unlock'],
    },
    { name: 'pending with no start time', given: { history: [stored(2, 'pending-install')] }, want: ['stale-lock', 'unlock'] },
    { name: 'first install failed', given: { history: [stored(1, 'failed')] }, want: ['failed-install', 'reinstall'] },
    {
      name: 'latest failed, deployed equals desired: re-apply',
      given: { history: [stored(3, 'failed', '4.0.0'), stored(2, 'deployed')] },
      want: ['out-of-sync', 'upgrade'],
    },
    {
      name: 'same failed attempt again',
      given: { history: [stored(2, 'failed'), stored(1, 'deployed', '1.0.0')], status: failedAttempt },
      want: ['failed-unchanged', 'report-failure'],
    },
    {
      name: 'failed attempt, then a new generation',
      given: { history: [stored(2, 'failed'), stored(1, 'deployed', '1.0.0')], status: { ...failedAttempt, lastAttemptedGeneration: 2 } },
      want: ['out-of-sync', 'upgrade'],
    },
  ])('$name → $want', ({ given, want }) => {
    const state = determineReleaseState(release({ status: given.status }), desired, summarizeHistory(given.history), clock);
    expect([state.kind, nextAction(state).kind]).toEqual(want);
  });
});

const suspendedByKubectl: HelmRelease['status'] = {
  conditions: [{ type: 'Suspended', status: 'True', reason: 'Suspended', message: 'Suspended by spec.suspend', lastTransitionTime: '2026-11-22T00:00:00Z' }],
};
const bySlack = { [SUSPENSION_ANNOTATION]: JSON.stringify({ by: 'slack:U1', at: '2026-11-22T01:00:00Z', reason: 'incident' }) };

describe('determineLifecycle → nextLifecycleAction', () => {
  const deleting = { deletionTimestamp: '2026-11-22T00:00:00Z' };
  it.each([
    { name: 'new object', given: release({ meta: { finalizers: undefined } }), history: [], want: 'add-finalizer' },
    { name: 'active', given: release(), history: [], want: 'continue' },
    { name: 'suspended, status does not show it yet', given: release({ spec: { suspend: true } }), history: [], want: 'record-suspension' },
    { name: 'suspended and recorded', given: release({ spec: { suspend: true }, status: suspendedByKubectl }), history: [], want: 'report-suspended' },
    // The API server returns status objects with their keys sorted, not in the order written.
    {
      name: 'suspended from chat and recorded, read back from the API server',
      given: release({
        spec: { suspend: true },
        status: { ...suspendedByKubectl, suspension: { at: '2026-11-22T01:00:00Z', by: 'slack:U1', reason: 'incident' } },
        meta: { annotations: bySlack },
      }),
      history: [],
      want: 'report-suspended',
    },
    {
      name: 'suspended, recorded, then suspended again by someone else',
      given: release({ spec: { suspend: true }, status: suspendedByKubectl, meta: { annotations: bySlack } }),
      history: [],
      want: 'record-suspension',
    },
    {
      name: 'suspended with a rollback asked for',
      given: release({ spec: { suspend: true }, status: suspendedByKubectl, meta: { annotations: { [ROLLBACK_REQUEST_ANNOTATION]: 'r1' } } }),
      history: [],
      want: 'rollback',
    },
    {
      name: 'suspended, that rollback already done',
      given: release({
        spec: { suspend: true },
        status: { ...suspendedByKubectl, rollback: { requestId: 'r1', succeeded: true, message: '', at: '' } },
        meta: { annotations: { [ROLLBACK_REQUEST_ANNOTATION]: 'r1' } },
      }),
      history: [],
      want: 'report-suspended',
    },
    {
      name: 'a rollback request on an active release is not acted on',
      given: release({ meta: { annotations: { [ROLLBACK_REQUEST_ANNOTATION]: 'r1' } } }),
      history: [],
      want: 'continue',
    },
    { name: 'resumed while status still says suspended', given: release({ status: suspendedByKubectl }), history: [], want: 'record-resume' },
    { name: 'deleting, installed', given: release({ meta: deleting }), history: [stored(1, 'deployed')], want: 'uninstall' },
    { name: 'deleting, failed install still stored', given: release({ meta: deleting }), history: [stored(1, 'failed')], want: 'uninstall' },
    { name: 'deleting, nothing installed', given: release({ meta: deleting }), history: [], want: 'remove-finalizer' },
    {
      name: 'deleting while suspended keeps the release',
      given: release({ meta: deleting, spec: { suspend: true } }),
      history: [stored(1, 'deployed')],
      want: 'remove-finalizer',
    },
    {
      name: 'deleting, our finalizer already gone',
      given: release({ meta: { ...deleting, finalizers: ['other'] } }),
      history: [stored(1, 'deployed')],
      want: 'nothing',
    },
  ])('$name → $want', ({ given, history, want }) => {
    expect(nextLifecycleAction(determineLifecycle(given, summarizeHistory(history))).kind).toBe(want);
  });
});

describe("a pending record is judged by the timeout its holder recorded, not the observer's", () => {
  const holder = (timeoutSeconds?: number) => ({
    ...pendingSince('2026-11-22T11:50:00Z'), // 10 minutes ago
    labels: { [OWNER_NAMESPACE_LABEL]: 'web', [OWNER_NAME_LABEL]: 'unicorn', ...(timeoutSeconds ? { [TIMEOUT_LABEL]: String(timeoutSeconds) } : {}) },
  });
  it.each([
    { name: 'holder 30m, observer 1s: its helm may still run', pending: holder(1800), observerTimeout: 1, want: 'locked' },
    { name: 'holder 30m, observer 5m', pending: holder(1800), observerTimeout: 300, want: 'locked' },
    { name: 'holder 1m, observer 30m: the holder is surely gone', pending: holder(60), observerTimeout: 1800, want: 'stale-lock' },
    { name: 'holder 9m50s: within its grace period', pending: holder(590), observerTimeout: 1, want: 'locked' },
    {
      name: "nothing recorded, observer 1s: helm's default 5m is the floor",
      pending: { ...holder(), lastDeployed: '2026-11-22T11:57:00Z' },
      observerTimeout: 1,
      want: 'locked',
    },
    { name: "nothing recorded, past helm's default", pending: holder(), observerTimeout: 1, want: 'stale-lock' },
    { name: 'nothing recorded, observer 30m', pending: holder(), observerTimeout: 1800, want: 'locked' },
  ])('$name → $want', ({ pending, observerTimeout, want }) => {
    const history = summarizeHistory([pending, stored(1, 'deployed')]);
    expect(determineReleaseState(release(), desired, history, { now: clock.now, timeoutSeconds: observerTimeout }).kind).toBe(want);
  });
});

describe("a pending rollback carries the labels of the revision it rolls back to, so the rollback's own timeout counts too", () => {
  // 10 minutes ago; its labels say 1m (the install it rolls back to), the rollback ran with 30m.
  const rollingBack = {
    ...pendingSince('2026-11-22T11:50:00Z'),
    status: 'pending-rollback' as const,
    labels: { [OWNER_NAMESPACE_LABEL]: 'web', [OWNER_NAME_LABEL]: 'unicorn', [TIMEOUT_LABEL]: '60' },
  };
  it.each([
    { name: 'rollback timeout 30m: its helm may still run', pending: rollingBack, rollbackTimeout: 1800, want: 'locked' },
    { name: 'rollback timeout 1m: surely gone', pending: rollingBack, rollbackTimeout: 60, want: 'stale-lock' },
    {
      name: 'a pending upgrade keeps its own recorded 1m',
      pending: { ...rollingBack, status: 'pending-upgrade' as const },
      rollbackTimeout: 1800,
      want: 'stale-lock',
    },
  ])('$name → $want', ({ pending, rollbackTimeout, want }) => {
    const history = summarizeHistory([pending, stored(1, 'deployed')]);
    const observed = { now: clock.now, timeoutSeconds: 300, rollbackTimeoutSeconds: rollbackTimeout };
    expect(determineReleaseState(release(), desired, history, observed).kind).toBe(want);
  });
});

describe('ownership decides before anything acts', () => {
  const deleting = { deletionTimestamp: '2026-11-22T00:00:00Z' };
  const labelled = (namespace: string, name: string, status: StoredRelease['status'] = 'deployed') => ({
    ...stored(1, status),
    labels: { [OWNER_NAMESPACE_LABEL]: namespace, [OWNER_NAME_LABEL]: name },
  });
  it.each([
    { name: 'ours, active', given: release(), history: [labelled('web', 'unicorn')], want: ['active', 'continue'] },
    { name: "another HelmRelease's, active", given: release(), history: [labelled('web', 'other')], want: ['not-ours', 'report-not-ours'] },
    {
      name: "another HelmRelease's, pending: never unlocked",
      given: release(),
      history: [labelled('web', 'other', 'pending-upgrade')],
      want: ['not-ours', 'report-not-ours'],
    },
    {
      name: "another HelmRelease's, failed: never reinstalled",
      given: release(),
      history: [labelled('web', 'other', 'failed')],
      want: ['not-ours', 'report-not-ours'],
    },
    {
      name: "another HelmRelease's, deleting: never uninstalled",
      given: release({ meta: deleting }),
      history: [labelled('web', 'other')],
      want: ['deleting-not-ours', 'remove-finalizer'],
    },
    { name: 'ours, deleting', given: release({ meta: deleting }), history: [labelled('web', 'unicorn')], want: ['deleting-installed', 'uninstall'] },
    { name: 'unlabelled, not installed by us', given: release(), history: [unlabelled(1, 'deployed')], want: ['not-ours', 'report-not-ours'] },
    {
      name: 'unlabelled, deleting, not installed by us: left installed',
      given: release({ meta: deleting }),
      history: [unlabelled(1, 'deployed')],
      want: ['deleting-not-ours', 'remove-finalizer'],
    },
    {
      name: 'unlabelled, status says we installed it',
      given: release({ status: { releaseName: 'unicorn', releaseNamespace: 'web' } }),
      history: [unlabelled(1, 'deployed')],
      want: ['active', 'continue'],
    },
    {
      name: "another's, but suspended: only our own status records it",
      given: release({ spec: { suspend: true } }),
      history: [labelled('web', 'other')],
      want: ['suspended', 'record-suspension'],
    },
    {
      name: 'ours, suspended, a rollback asked for',
      given: release({ spec: { suspend: true }, meta: { annotations: { [ROLLBACK_REQUEST_ANNOTATION]: 'r1' } } }),
      history: [labelled('web', 'unicorn')],
      want: ['rollback-requested', 'rollback'],
    },
    {
      name: 'ours, suspended and recorded',
      given: release({ spec: { suspend: true }, status: suspendedByKubectl }),
      history: [labelled('web', 'unicorn')],
      want: ['suspension-recorded', 'report-suspended'],
    },
    {
      name: "another's, suspended, a rollback asked for: never rolled back",
      given: release({ spec: { suspend: true }, meta: { annotations: { [ROLLBACK_REQUEST_ANNOTATION]: 'r1' } } }),
      history: [labelled('web', 'other')],
      want: ['suspended', 'record-suspension'],
    },
  ])('$name → $want', ({ given, history, want }) => {
    const state = determineLifecycle(given, summarizeHistory(history));
    expect([state.kind, nextLifecycleAction(state).kind]).toEqual(want);
  });
});

describe('needsFinalizer (decided from the object alone, so it can be written while the history is read)', () => {
  it.each([
    ['a live object without the finalizer', release({ meta: { finalizers: undefined } }), true],
    ['a live object with other finalizers only', release({ meta: { finalizers: ['example.com/keep'] } }), true],
    ['a live object with the finalizer', release(), false],
    ['a deleting object without the finalizer', release({ meta: { finalizers: undefined, deletionTimestamp: '2026-11-22T12:00:00Z' } }), false],
    ['a deleting object with the finalizer', release({ meta: { deletionTimestamp: '2026-11-22T12:00:00Z' } }), false],
  ])('%s → %s', (_what, object, expected) => {
    expect(needsFinalizer(object)).toBe(expected);
    // The same answer as the lifecycle decision with any history.
    expect(determineLifecycle(object, summarizeHistory([])).kind === 'needs-finalizer').toBe(expected);
  });
});

describe('pendingLeftByRollback: the revision a failed helm rollback of this pass left pending', () => {
  it.each([
    { name: 'a new pending-rollback revision (a pre-rollback hook failed)', before: 3, after: stored(4, 'pending-rollback'), left: 4 },
    { name: 'no new revision (helm failed before writing one)', before: 3, after: stored(3, 'failed'), left: undefined },
    { name: 'the new revision already marked by helm', before: 3, after: stored(4, 'failed'), left: undefined },
    { name: 'an older pending-rollback (not this run’s: the stale-lock rule decides)', before: 4, after: stored(4, 'pending-rollback'), left: undefined },
    { name: 'another kind of pending', before: 3, after: stored(4, 'pending-upgrade'), left: undefined },
    { name: 'no records left', before: 3, after: undefined, left: undefined },
    { name: 'nothing known before', before: undefined, after: stored(1, 'pending-rollback'), left: 1 },
  ])('$name', ({ before, after, left }) => {
    expect(pendingLeftByRollback(before, after)?.revision).toBe(left);
  });
});

describe('a pending record left by this release’s own failed attempt is unlocked at once (helm failed as the API server went away)', () => {
  // The attempt started at 11:59:00; its helm made revision 2 a second later and failed; the failure was recorded at 11:59:30.
  const attempt = { ...failedAttempt, lastAttemptedAt: '2026-11-22T11:59:00.000Z', lastReconciledAt: '2026-11-22T11:59:30.000Z' };
  it.each([
    { name: 'made by the failed attempt', status: attempt, pending: pendingSince('2026-11-22T11:59:01Z'), want: 'stale-lock' },
    { name: 'made after the failure was recorded (a person’s helm)', status: attempt, pending: pendingSince('2026-11-22T11:59:40Z'), want: 'locked' },
    { name: 'older than the attempt', status: attempt, pending: pendingSince('2026-11-22T11:58:59Z'), want: 'locked' },
    {
      name: 'the attempt still runs (its started status)',
      status: { ...attempt, lastAttemptFailed: false },
      pending: pendingSince('2026-11-22T11:59:01Z'),
      want: 'locked',
    },
    { name: 'no failure time recorded', status: { ...attempt, lastReconciledAt: undefined }, pending: pendingSince('2026-11-22T11:59:01Z'), want: 'locked' },
  ])('$name → $want', ({ status, pending, want }) => {
    const history = summarizeHistory([pending, stored(1, 'deployed')]);
    expect(determineReleaseState(release({ status }), desired, history, clock).kind).toBe(want);
  });
});

describe("a pending record made while this process's helm ran, that helm now exited, is unlocked at once (its failure may never have reached status)", () => {
  const at = (iso: string) => Date.parse(iso);
  const run = { startedAt: at('2026-11-22T11:59:00Z'), exitedAt: at('2026-11-22T11:59:02Z') };
  it.each([
    { name: 'made while it ran', pending: pendingSince('2026-11-22T11:59:01Z'), ownHelmRun: run, want: 'stale-lock' },
    { name: 'made before it started (another holder: helm refused ours)', pending: pendingSince('2026-11-22T11:58:30Z'), ownHelmRun: run, want: 'locked' },
    { name: 'made after it exited (a person’s helm)', pending: pendingSince('2026-11-22T11:59:05Z'), ownHelmRun: run, want: 'locked' },
    { name: 'no helm of ours known (a restart, another replica)', pending: pendingSince('2026-11-22T11:59:01Z'), ownHelmRun: undefined, want: 'locked' },
  ])('$name → $want', ({ pending, ownHelmRun, want }) => {
    const history = summarizeHistory([pending, stored(1, 'deployed')]);
    expect(determineReleaseState(release(), desired, history, { ...clock, ownHelmRun }).kind).toBe(want);
  });
});
