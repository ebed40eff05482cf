import { describe, expect, it } from 'vitest';
import { ROLLBACK_REQUEST_ANNOTATION } from '../../src/api/annotations.js';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { reconcileRelease } from '../../src/controller/reconcile/reconciler.js';
import { RetryLaterError } from '../../src/controller/reconcile/ports/context.js';
import { fakeController, helmRelease, type Fakes } from './support/reconcile-fakes.js';

/**
 * The reconcile pass driven end to end through its stages and actions, on in-memory fakes of its
 * ports (support/reconcile-fakes.ts): the orchestration rules the integration suite used to be the
 * only check of, in milliseconds.
 */

const NS = 'apps';
const NAME = 'app';
const pass = (f: Fakes) => reconcileRelease(f.ctx, NS, NAME);
const condition = (f: Fakes, type: string) => f.api.peek(NS, NAME)?.status?.conditions?.find((c) => c.type === type);

/** A release installed and settled at chart 1.0.0, values {replicas: 1}. */
async function installed(spec: Partial<HelmRelease['spec']> = {}): Promise<Fakes> {
  const f = fakeController();
  f.api.put(helmRelease({ values: { replicas: 1 }, ...spec }));
  expect((await pass(f)).action).toBe('install');
  f.world.timeline.length = 0;
  f.helm.calls.length = 0;
  return f;
}

describe('status before helm', () => {
  it.each([
    { name: 'install', arrange: async () => fakeController(), act: 'install', attempt: 'status Installing', helm: 'helm install' },
    {
      name: 'upgrade',
      arrange: async () => {
        const f = await installed();
        f.api.editSpec(NS, NAME, (spec) => (spec.values = { replicas: 2 }));
        return f;
      },
      act: 'upgrade',
      attempt: 'status Upgrading',
      helm: 'helm upgrade',
    },
  ])('$name: "attempt started" is on the server before helm runs, the outcome after', async ({ arrange, act, attempt, helm }) => {
    const f = await arrange();
    if (!f.api.peek(NS, NAME)) f.api.put(helmRelease({ values: { replicas: 1 } }));
    const result = await pass(f);
    expect(result.action).toBe(act);
    const { timeline } = f.world;
    expect(timeline.indexOf(attempt)).toBeGreaterThanOrEqual(0);
    expect(timeline.indexOf(attempt)).toBeLessThan(timeline.indexOf(helm));
    // The outcome (Ready) is written after helm.
    expect(timeline.lastIndexOf('status Reconciling') === -1 || timeline.lastIndexOf('status Reconciling') > timeline.indexOf(helm)).toBe(true);
    expect(condition(f, 'Ready')?.status).toBe('True');
  });

  it('a first install writes the finalizer, "attempt started" and the outcome: two status writes, one GET', async () => {
    const f = fakeController();
    f.api.put(helmRelease());
    await pass(f);
    expect(f.world.timeline.filter((t) => !t.startsWith('event') && t !== 'chart resolved')).toEqual([
      'finalizer added',
      'status Installing',
      'helm install',
      'status InstallSucceeded',
    ]);
    expect(f.api.statusWrites).toBe(2);
    expect(f.api.gets).toBe(1);
  });
});

describe('one fresh pass after an attempt', () => {
  it.each([
    { name: 'success, no tests: no further pass', spec: {}, fail: [], verbs: ['install'], gets: 1, action: 'install' },
    {
      name: 'success, tests wanted: one fresh pass runs them',
      spec: { test: { enable: true } },
      fail: [],
      verbs: ['install', 'test'],
      gets: 2,
      action: 'test',
    },
    {
      name: 'failure, final (no remediation): Stalled at once, no further pass',
      spec: {},
      fail: ['install' as const],
      verbs: ['install'],
      gets: 1,
      action: 'install',
    },
    {
      name: 'failure, a retry left: one fresh pass remediates, one more decides to wait',
      spec: { install: { remediation: { retries: 1 } } },
      fail: ['install' as const],
      verbs: ['install', 'uninstall'],
      gets: 3,
      action: 'wait-for-retry',
    },
  ])('$name', async ({ spec, fail, verbs, gets, action }) => {
    const f = fakeController();
    f.api.put(helmRelease(spec));
    f.helm.fail = [...fail];
    expect((await pass(f)).action).toBe(action);
    expect(f.helm.verbs()).toEqual(verbs);
    expect(f.api.gets).toBe(gets);
  });
});

describe('a pending record', () => {
  it('left by a helm that is gone: unlocked (marked failed), then decided again from what is there now', async () => {
    const f = fakeController();
    // Installed by this HelmRelease (status says so), so the record is its own.
    f.api.put({ ...helmRelease(), status: { releaseName: NAME, releaseNamespace: NS } });
    f.storage.add({ revision: 1, status: 'pending-install', chartName: 'app', chartVersion: '1.0.0', config: {}, lastDeployed: '2026-11-26T08:00:00Z' });
    const result = await pass(f);
    // The only record is a failed first install now: it is removed and installed again.
    expect(f.world.timeline.filter((t) => t.startsWith('unlock') || t.startsWith('helm'))).toEqual(['unlock 1', 'helm uninstall', 'helm install']);
    expect(result.action).toBe('reinstall');
    expect(f.events.names()).toContain('ReleaseUnlocked');
  });

  it('held by a helm that may still run: nothing runs, the queue tries again later', async () => {
    const f = fakeController();
    // Installed by this HelmRelease (status says so), so the record is its own.
    f.api.put({ ...helmRelease(), status: { releaseName: NAME, releaseNamespace: NS } });
    f.storage.add({ revision: 1, status: 'pending-install', chartName: 'app', chartVersion: '1.0.0', config: {}, lastDeployed: f.world.now.toISOString() });
    await expect(pass(f)).rejects.toBeInstanceOf(RetryLaterError);
    expect(f.helm.verbs()).toEqual([]);
    expect(condition(f, 'Reconciling')?.reason).toBe('ReleaseLocked');
  });
});

describe('remediation order', () => {
  it.each([
    {
      name: 'upgrade, retries 1, rollback: upgrade, rollback, wait; upgrade, rollback, give up',
      spec: { upgrade: { remediation: { retries: 1, strategy: 'rollback' as const } } },
      failing: ['upgrade', 'upgrade'] as const,
      first: ['upgrade', 'rollback'],
      second: ['upgrade', 'rollback'],
    },
    {
      // The install that follows an uninstall is an install: install.remediation (none here) decides after it.
      name: 'upgrade, retries 1, uninstall: upgrade, uninstall, wait; install, Stalled',
      spec: { upgrade: { remediation: { retries: 1, strategy: 'uninstall' as const } } },
      failing: ['upgrade', 'install'] as const,
      first: ['upgrade', 'uninstall'],
      second: ['install'],
    },
    {
      name: 'upgrade, no remediation block: one upgrade, then Stalled',
      spec: {},
      failing: ['upgrade'] as const,
      first: ['upgrade'],
      second: undefined,
    },
  ])('$name', async ({ spec, failing, first, second }) => {
    const f = await installed(spec);
    f.api.editSpec(NS, NAME, (s) => (s.values = { replicas: 2 }));
    f.helm.fail = [...failing];
    const firstResult = await pass(f);
    expect(f.helm.verbs()).toEqual(first);
    if (second) {
      // A retry waits its backoff; the next pass after it tries once more, then gives up.
      expect(firstResult.action).toBe('wait-for-retry');
      expect(condition(f, 'Stalled')).toBeUndefined();
      f.helm.calls.length = 0;
      f.world.tick(60_000);
      await pass(f);
      expect(f.helm.verbs()).toEqual(second);
    }
    expect(condition(f, 'Stalled')?.status).toBe('True');
    expect(condition(f, 'Ready')?.status).toBe('False');
    // Given up: a later check runs nothing and writes no condition.
    const writes = f.api.statusWrites;
    f.helm.calls.length = 0;
    f.world.tick(600_000);
    expect((await pass(f)).action).toBe('report-failure');
    expect(f.helm.verbs()).toEqual([]);
    expect(f.api.statusWrites - writes).toBeLessThanOrEqual(1);
    expect(condition(f, 'Stalled')?.status).toBe('True');
  });
});

describe('the freeze gate', () => {
  const freeze = { name: 'release-week', namespace: 'ops', reason: 'launch' };

  it.each([
    { name: 'a first install', arrange: async () => fakeController(), verb: 'install' },
    {
      name: 'an upgrade',
      arrange: async () => {
        const f = await installed();
        f.api.editSpec(NS, NAME, (spec) => (spec.values = { replicas: 3 }));
        return f;
      },
      verb: 'upgrade',
    },
  ])('holds $name: no helm, Frozen once, one Event; the next check writes nothing', async ({ arrange }) => {
    const f = await arrange();
    if (!f.api.peek(NS, NAME)) f.api.put(helmRelease());
    f.freezes.holdingNow = [freeze];
    expect((await pass(f)).action).toBe('frozen');
    expect(f.helm.verbs()).toEqual([]);
    expect(condition(f, 'Frozen')?.status).toBe('True');
    const writes = f.api.statusWrites;
    expect((await pass(f)).action).toBe('frozen');
    expect(f.api.statusWrites).toBe(writes);
    expect(f.events.names().filter((e) => e === 'Frozen')).toHaveLength(1);
    // The freeze ends: Frozen goes and the action runs.
    f.freezes.holdingNow = [];
    await pass(f);
    expect(f.helm.verbs().length).toBeGreaterThan(0);
    expect(condition(f, 'Frozen')).toBeUndefined();
  });

  it('waits (no helm) while the Freezes are not listed yet', async () => {
    const f = fakeController();
    f.api.put(helmRelease());
    f.freezes.holdingNow = undefined;
    await expect(pass(f)).rejects.toBeInstanceOf(RetryLaterError);
    expect(f.helm.verbs()).toEqual([]);
  });
});

describe('a superseded attempt', () => {
  it('a newer generation cancels the running install; no failure is counted and the fresh pass installs the new spec', async () => {
    const f = fakeController();
    f.api.put(helmRelease({ values: { replicas: 1 } }));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    f.helm.hold = { started, release: new Promise(() => undefined) };
    const result = pass(f);
    await running;
    // What the watch does when a new generation arrives (controller.ts onGeneration).
    const edited = f.api.editSpec(NS, NAME, (spec) => (spec.values = { replicas: 2 }));
    expect(f.operations.supersede(`${NS}/${NAME}`, edited.metadata.generation)).toBe(true);
    expect((await result).action).toBe('install');
    expect(f.helm.verbs()).toEqual(['install', 'install']);
    const status = f.api.peek(NS, NAME)!.status!;
    expect(status.installFailures ?? 0).toBe(0);
    expect(status.lastAttemptedGeneration).toBe(2);
    expect(f.storage.records.map((r) => [r.status, r.config])).toEqual([['deployed', { replicas: 2 }]]);
  });
});

describe('a pass from the informer cache', () => {
  it('a settled copy: nothing to change, no GET and no write', async () => {
    const f = await installed();
    f.cache.copies.set(`${NS}/${NAME}`, f.api.peek(NS, NAME)!);
    const [gets, writes] = [f.api.gets, f.api.statusWrites];
    expect((await pass(f)).action).toBe('unchanged');
    expect([f.api.gets - gets, f.api.statusWrites - writes]).toEqual([0, 0]);
    expect(f.helm.verbs()).toEqual([]);
  });

  it('a settled copy whose pass would write: falls back to a fresh read, which acts', async () => {
    const f = await installed();
    f.cache.copies.set(`${NS}/${NAME}`, f.api.peek(NS, NAME)!);
    // Someone upgraded by hand: Helm's records no longer match the spec.
    const deployed = f.storage.records.find((r) => r.status === 'deployed')!;
    deployed.status = 'superseded';
    f.storage.add({ ...deployed, revision: 2, status: 'deployed', config: { replicas: 9 } });
    const gets = f.api.gets;
    expect((await pass(f)).action).toBe('upgrade');
    expect(f.api.gets - gets).toBe(1);
    expect(f.api.conflicts).toBe(0);
    expect(f.helm.verbs()).toEqual(['upgrade']);
  });

  it('a stale copy of a new spec: its first write is refused (409), nothing ran, and a fresh pass acts', async () => {
    const f = await installed();
    const stale = f.api.editSpec(NS, NAME, (spec) => (spec.values = { replicas: 2 }));
    f.api.editSpec(NS, NAME, (spec) => (spec.values = { replicas: 3 }));
    f.cache.copies.set(`${NS}/${NAME}`, stale);
    expect((await pass(f)).action).toBe('upgrade');
    expect(f.api.conflicts).toBe(1);
    expect(f.helm.verbs()).toEqual(['upgrade']);
    expect(f.storage.records.find((r) => r.status === 'deployed')?.config).toEqual({ replicas: 3 });
  });
});

describe('a rollback on request (lifecycle stage, actions/rollback.ts)', () => {
  it("runs on the gate's history and redacts without resolving the chart: one records read, no chart lookup", async () => {
    const f = await installed();
    f.api.editSpec(NS, NAME, (spec) => (spec.values = { replicas: 2 }));
    await pass(f);
    f.api.editSpec(NS, NAME, (spec) => (spec.suspend = true));
    await pass(f);
    f.api.annotate(NS, NAME, { [ROLLBACK_REQUEST_ANNOTATION]: 'r1' });
    f.world.timeline.length = 0;
    f.helm.calls.length = 0;
    const reads = f.storage.reads;
    expect((await pass(f)).action).toBe('rollback');
    expect(f.helm.calls).toEqual([{ verb: 'rollback', revision: 1 }]);
    // The gate's read, and the one after helm for the outcome: none in between, no chart resolved.
    expect(f.storage.reads - reads).toBe(2);
    expect(f.world.timeline).not.toContain('chart resolved');
    expect(f.world.timeline.indexOf('status RollingBack')).toBeLessThan(f.world.timeline.indexOf('helm rollback'));
    expect(f.api.peek(NS, NAME)?.status?.rollback).toMatchObject({ requestId: 'r1', succeeded: true, fromRevision: 2, toRevision: 1 });
  });
});
