import { describe, expect, it, vi } from 'vitest';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { createLogger } from '../../src/core/log.js';
import { jobOutstanding, OutstandingJobs } from '../../src/controller/queue/outstanding-jobs.js';
import { queueTriggers } from '../../src/controller/queue/queue-triggers.js';
import { RunningOperations } from '../../src/controller/reconcile/ports/running-operations.js';
import { startResync } from '../../src/controller/watch/resync.js';

const log = createLogger('unit', 'silent');

describe('jobOutstanding', () => {
  it.each([
    { name: 'never queued here', enqueuedAt: undefined, last: undefined, now: 10, want: false },
    { name: 'queued, never checked', enqueuedAt: 5, last: undefined, now: 10, want: true },
    { name: 'queued after the last check ended', enqueuedAt: 5, last: 4, now: 10, want: true },
    { name: 'a check ended after it was queued', enqueuedAt: 5, last: 6, now: 10, want: false },
    { name: 'queued too long ago to be trusted', enqueuedAt: 5, last: 4, now: 5 + 30_000, want: false },
  ])('$name → $want', ({ enqueuedAt, last, now, want }) => {
    expect(jobOutstanding(enqueuedAt, last, now)).toBe(want);
  });
});

describe('OutstandingJobs', () => {
  it('only a job Redis took counts: a failed enqueue leaves the release to the resync', async () => {
    const outstanding = new OutstandingJobs();
    const triggers = queueTriggers(
      { enqueue: (key: string) => (key === 'bad/one' ? Promise.reject(new Error('redis down')) : Promise.resolve()) },
      new RunningOperations(),
      log,
      outstanding,
      () => 100,
    );
    triggers.enqueue('apps/a', 'watch');
    triggers.enqueue('bad/one', 'watch');
    triggers.requeue('apps/b', 'retry', 5000);
    await new Promise((resolve) => setImmediate(resolve));
    expect(['apps/a', 'bad/one', 'apps/b'].map((k) => outstanding.holds(k, undefined, 200))).toEqual([true, false, false]);
  });

  it('a resync marks the ledger as it begins; a ledger that lost its mark (Redis wiped) forgets every job and marks it again', async () => {
    const outstanding = new OutstandingJobs();
    const marked: number[] = [];
    let intact = true;
    const ledger = { read: async () => ({ checks: new Map([['apps/z', 1]]), intact }), markIntact: (at: number) => void marked.push(at) };
    const gate = outstanding.resyncGate(ledger, () => 200);
    expect(marked).toEqual([200]);
    outstanding.enqueued('apps/a', 150);
    expect(await gate.lastChecked()).toEqual(new Map([['apps/z', 1]]));
    expect(gate.outstanding('apps/a', undefined)).toBe(true);
    expect(marked).toEqual([200]);
    intact = false;
    await gate.lastChecked();
    expect(marked).toEqual([200, 200]);
    expect(gate.outstanding('apps/a', undefined)).toBe(false);
  });
});

describe('startResync with outstanding jobs', () => {
  const pending = (name: string): HelmRelease => ({
    apiVersion: 'helmcrew.dev/v1alpha1',
    kind: 'HelmRelease',
    metadata: { name, namespace: 'apps', generation: 2 },
    spec: { chart: { name: 'x' }, interval: '1m' },
    status: { observedGeneration: 1 },
  });

  it('a release whose spec is not done yet is queued once, not at every tick, while its job waits', async () => {
    // The ticks on fake timers: eight rounds, then four, run exactly, whatever the machine's load.
    vi.useFakeTimers();
    const outstanding = new OutstandingJobs();
    let now = 1_000_000;
    const queued: string[] = [];
    const gate = outstanding.resyncGate({ read: async () => ({ checks: new Map(), intact: true }), markIntact: () => undefined }, () => now);
    const stop = startResync({
      list: () => [pending('a'), pending('b')],
      ...gate,
      onKey: (key) => {
        queued.push(key);
        outstanding.enqueued(key, now);
      },
      tickMs: 5,
      now: () => now,
    });
    try {
      await vi.advanceTimersByTimeAsync(40);
      expect(queued).toEqual(['apps/a', 'apps/b']);
      now += 30_000;
      await vi.advanceTimersByTimeAsync(20);
    } finally {
      stop();
      vi.useRealTimers();
    }
    expect(queued.slice(0, 4)).toEqual(['apps/a', 'apps/b', 'apps/a', 'apps/b']);
    expect(queued).toHaveLength(4);
  });
});
