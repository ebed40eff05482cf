import type { Queue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { HelmCanceledError } from '../../src/controller/helm/helm-error.js';
import { HelmSlotGate } from '../../src/controller/helm/helm-slot-gate.js';
import { HelmSlots } from '../../src/controller/helm/helm-slots.js';
import { slotWait, type QueueLoadReader } from '../../src/controller/helm/slot-wait.js';
import { ReadAhead } from '../../src/controller/queue/read-ahead.js';
import { queueLoadOf, type ReconcileJob } from '../../src/controller/queue/reconcile-queue.js';
import { buildReconcileContext } from '../../src/controller/reconcile/ports/build-context.js';
import type { ControllerContext } from '../../src/controller/reconcile/ports/context.js';
import { reconcileRelease } from '../../src/controller/reconcile/reconciler.js';
import { HAND_BACK_RETRY_MS } from '../../src/controller/reconcile/stages/act.js';
import { createLogger } from '../../src/core/log.js';
import { fakeController, helmRelease } from './support/reconcile-fakes.js';

const quiet = createLogger('test', 'silent');
const load = (queued: number, otherReplicas: boolean | undefined): QueueLoadReader => ({
  queued: async () => queued,
  otherReplicas: async () => otherReplicas,
});

/**
 * Issue 36, read-ahead on by default: follower-supersede.test.ts failed with it on because one
 * replica took both doomed upgrades and the second waited (minutes) for the first's helm slot while
 * the other replica ran nothing. An install or upgrade with no slot free now waits only when no
 * other replica could start it sooner.
 */
describe('no helm slot free: wait, or hand the release back', () => {
  it.each([
    { name: 'another replica, nothing queued: it may be idle', queued: 0, others: true, want: 'hand-back' },
    { name: 'another replica, releases queued: every replica is busy', queued: 3, others: true, want: 'wait' },
    { name: 'the only replica', queued: 0, others: false, want: 'wait' },
    { name: 'Redis cannot tell (CLIENT LIST refused): as alone', queued: 0, others: undefined, want: 'wait' },
  ] as const)('$name: $want', ({ queued, others, want }) => {
    expect(slotWait({ queued, otherReplicas: others })).toBe(want);
  });
});

describe('the helm slot gate', () => {
  it("holds a free slot for the release's helm: its acquire does not wait, and no other pass gets the slot meanwhile", async () => {
    const slots = new HelmSlots(1);
    const gate = new HelmSlotGate(slots, load(0, true), quiet);
    const held = await gate.take('apps/red');
    expect(held.kind).toBe('held');
    // Another pass reading ahead finds no slot and, another replica being idle, hands its release back.
    expect((await gate.take('apps/blue')).kind).toBe('hand-back');
    // The helm of apps/red (HelmRunner: acquire with its release key) starts at once, on the held slot.
    const free = await slots.acquire(undefined, 'apps/red');
    expect(slots.queued).toBe(0);
    free();
    // Given back after helm: a no-op; the slot is free once.
    if (held.kind === 'held') held.giveBack();
    expect(slots.tryAcquire()).toBeDefined();
    expect(slots.tryAcquire()).toBeUndefined();
  });

  it('gives a held slot back when helm never took it', async () => {
    const slots = new HelmSlots(1);
    const held = await new HelmSlotGate(slots, undefined, quiet).take('apps/red');
    if (held.kind !== 'held') throw new Error(`expected a held slot, got ${held.kind}`);
    held.giveBack();
    expect(slots.tryAcquire()).toBeDefined();
  });

  it('waits (at helm, as before) when releases are queued, when alone, without a queue to ask or when the queue cannot be read', async () => {
    const failing: QueueLoadReader = { queued: () => Promise.reject(new Error('redis down')), otherReplicas: async () => true };
    for (const reader of [load(2, true), load(0, false), undefined, failing]) {
      const slots = new HelmSlots(1);
      slots.tryAcquire();
      expect((await new HelmSlotGate(slots, reader, quiet).take('apps/blue')).kind).toBe('wait');
    }
  });

  it('waits for a slot when told to wait, and holds it for the helm; a newer generation cancels the wait as it cancels helm', async () => {
    const slots = new HelmSlots(1);
    const running = slots.tryAcquire()!;
    const gate = new HelmSlotGate(slots, load(2, true), quiet);
    expect((await gate.take('apps/blue')).kind).toBe('wait');
    const cancel = new AbortController();
    const cancelled = gate.waitFor('apps/blue', 'upgrade', cancel.signal);
    cancel.abort();
    await expect(cancelled).rejects.toBeInstanceOf(HelmCanceledError);
    const waiting = gate.waitFor('apps/blue', 'upgrade');
    running();
    const giveBack = await waiting;
    (await slots.acquire(undefined, 'apps/blue'))();
    giveBack();
    expect(slots.tryAcquire()).toBeDefined();
    expect(slots.tryAcquire()).toBeUndefined();
  });

  it('takes a slot that freed while the queue was read', async () => {
    const slots = new HelmSlots(1);
    const running = slots.tryAcquire()!;
    const reader: QueueLoadReader = {
      queued: async () => (running(), 0),
      otherReplicas: async () => true,
    };
    expect((await new HelmSlotGate(slots, reader, quiet).take('apps/blue')).kind).toBe('held');
  });
});

describe('an upgrade handed back', () => {
  it('says nothing and runs nothing: no "attempt started", no Event, no helm; the queue offers it again shortly', async () => {
    const f = fakeController();
    f.api.put(helmRelease({ values: { replicas: 1 } }));
    expect((await reconcileRelease(f.ctx, 'apps', 'app')).action).toBe('install');
    f.api.editSpec('apps', 'app', (spec) => (spec.values = { replicas: 2 }));
    const slots = new HelmSlots(1);
    const running = slots.tryAcquire()!;
    const ctx = buildReconcileContext({ ...f.ctx, helmSlots: new HelmSlotGate(slots, load(0, true), quiet) });
    const writes = f.api.statusWrites;
    const events = f.events.recorded.length;
    const result = await reconcileRelease(ctx, 'apps', 'app');
    expect(result).toEqual({ key: 'apps/app', action: 'handed-back', requeueAfterMs: HAND_BACK_RETRY_MS });
    expect(f.api.statusWrites).toBe(writes);
    expect(f.events.recorded.length).toBe(events);
    expect(f.helm.verbs()).toEqual(['install']);
    // Once a slot is free, the same pass upgrades, and gives the slot back after.
    running();
    expect((await reconcileRelease(ctx, 'apps', 'app')).action).toBe('upgrade');
    expect(f.helm.verbs()).toEqual(['install', 'upgrade']);
    expect(slots.tryAcquire()).toBeDefined();
  });
});

describe('an upgrade that waits for a slot', () => {
  it('says it started while the other helm runs, then waits, then runs helm', async () => {
    const f = fakeController();
    f.api.put(helmRelease({ values: { replicas: 1 } }));
    expect((await reconcileRelease(f.ctx, 'apps', 'app')).action).toBe('install');
    f.api.editSpec('apps', 'app', (spec) => (spec.values = { replicas: 2 }));
    const slots = new HelmSlots(1);
    const running = slots.tryAcquire()!;
    const ctx = buildReconcileContext({ ...f.ctx, helmSlots: new HelmSlotGate(slots, load(2, true), quiet) });
    f.world.timeline.length = 0;
    const result = reconcileRelease(ctx, 'apps', 'app');
    while (slots.queued === 0) await new Promise((resolve) => setImmediate(resolve));
    expect(f.world.timeline).toContain('status Upgrading');
    expect(f.helm.verbs()).toEqual(['install']);
    running();
    expect((await result).action).toBe('upgrade');
    expect(f.helm.verbs()).toEqual(['install', 'upgrade']);
    expect(slots.tryAcquire()).toBeDefined();
  });
});

describe('the health checks after a long wait for a slot', () => {
  it("count their share of the timeout from the slot, not from before the wait: a healthy upgrade is not failed for the wait's time", async () => {
    const f = fakeController();
    f.api.put(helmRelease({ values: { replicas: 1 } }));
    expect((await reconcileRelease(f.ctx, 'apps', 'app')).action).toBe('install');
    // What helm wrote has a Widget, judged by spec.healthCheckExprs: in progress at first, then current.
    const add = f.storage.add.bind(f.storage);
    f.storage.add = (record) => add({ ...record, manifest: '---\napiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n' });
    let reads = 0;
    const reader = {
      read: async () => ({
        kind: 'found' as const,
        clusterScoped: false,
        object: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, status: { ready: reads++ > 0 } },
      }),
    };
    f.api.editSpec('apps', 'app', (spec) => {
      spec.values = { replicas: 2 };
      spec.healthCheckExprs = [{ apiVersion: 'example.com/v1', kind: 'Widget', current: 'status.ready == true' }];
    });
    const slots = new HelmSlots(1);
    const running = slots.tryAcquire()!;
    const ctx = buildReconcileContext({
      ...f.ctx,
      releaseObjects: { ...reader, forUser: () => reader } as unknown as ControllerContext['releaseObjects'],
      helmSlots: new HelmSlotGate(slots, load(2, true), quiet),
    });
    const result = reconcileRelease(ctx, 'apps', 'app');
    while (slots.queued === 0) await new Promise((resolve) => setImmediate(resolve));
    // The other helm runs longer than this release's whole timeout (5 m by default).
    f.world.tick(10 * 60_000);
    running();
    expect((await result).action).toBe('upgrade');
    expect(reads).toBe(2);
    const status = f.api.peek('apps', 'app')!.status!;
    expect(status.upgradeFailures ?? 0).toBe(0);
    expect(status.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
  });
});

describe('a freeze that comes while an upgrade waits for its slot', () => {
  it('holds it when its turn comes: no helm, Frozen recorded by the fresh pass', async () => {
    const f = fakeController();
    f.api.put(helmRelease({ values: { replicas: 1 } }));
    expect((await reconcileRelease(f.ctx, 'apps', 'app')).action).toBe('install');
    f.api.editSpec('apps', 'app', (spec) => (spec.values = { replicas: 2 }));
    const slots = new HelmSlots(1);
    const running = slots.tryAcquire()!;
    const ctx = buildReconcileContext({ ...f.ctx, helmSlots: new HelmSlotGate(slots, load(2, true), quiet) });
    const result = reconcileRelease(ctx, 'apps', 'app');
    while (slots.queued === 0) await new Promise((resolve) => setImmediate(resolve));
    f.freezes.holdingNow = [{ name: 'release-week', reason: 'launch' }];
    running();
    expect((await result).action).toBe('frozen');
    expect(f.helm.verbs()).toEqual(['install']);
    expect(f.api.peek('apps', 'app')?.status?.conditions?.find((c) => c.type === 'Frozen')?.status).toBe('True');
    expect(f.events.names()).toContain('Frozen');
    expect(slots.tryAcquire()).toBeDefined();
  });
});

describe('reading ahead after a hand-back', () => {
  it('takes no more passes than slots until a helm slot frees, then reads ahead again', async () => {
    const worker = { concurrency: 0 };
    const readAhead = new ReadAhead(1, 2);
    readAhead.attach(worker);
    expect(worker.concurrency).toBe(2);
    const slots = new HelmSlots(1, () => readAhead.resume());
    const running = slots.tryAcquire()!;
    const gate = new HelmSlotGate(slots, load(0, true), quiet, () => readAhead.pause());
    expect((await gate.take('apps/blue')).kind).toBe('hand-back');
    // BullMQ would hand this replica the next job as the handed-back pass completes: it has no room now.
    expect(worker.concurrency).toBe(1);
    running();
    expect(worker.concurrency).toBe(2);
  });
});

describe("the queue's load", () => {
  it('counts runnable jobs, and other replicas from the workers listed (at most every 10 s; a Redis refusing CLIENT LIST: unknown)', async () => {
    let workers = [{ name: 'a' }, { name: 'b' }];
    let lists = 0;
    const queue = {
      getJobCountByTypes: async (...types: string[]) => (types.join() === 'wait,prioritized' ? 4 : -1),
      getWorkers: async () => (lists++, workers),
    } as unknown as Queue<ReconcileJob>;
    let now = 0;
    const reader = queueLoadOf(queue, () => now);
    expect(await reader.queued()).toBe(4);
    expect(await reader.otherReplicas()).toBe(true);
    workers = [{ name: 'a' }];
    now = 5_000;
    expect(await reader.otherReplicas()).toBe(true);
    expect(lists).toBe(1);
    now = 10_000;
    expect(await reader.otherReplicas()).toBe(false);
    workers = [{ name: 'GCP does not support client list' }];
    now = 20_000;
    expect(await reader.otherReplicas()).toBeUndefined();
  });
});
