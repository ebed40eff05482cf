import { describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { createLogger } from '../../src/core/log.js';
import { queueTriggers } from '../../src/controller/queue/queue-triggers.js';
import { recordedPass } from '../../src/controller/queue/recorded-pass.js';
import { RunningOperations } from '../../src/controller/reconcile/ports/running-operations.js';
import { frozenReleaseKeys } from '../../src/controller/watch/frozen-wake.js';

/** The logic startController used to hold inline, now in files of its own. */

const log = createLogger('unit', 'silent');

describe('recordedPass', () => {
  const ledger = () => {
    const calls: string[] = [];
    return {
      calls,
      checked: (key: string, at: number) => void calls.push(`checked ${key} ${at}`),
      forget: (key: string) => void calls.push(`forget ${key}`),
    };
  };
  it.each([
    { action: 'install', want: ['checked apps/app 42'] },
    { action: 'unchanged', want: ['checked apps/app 42'] },
    { action: 'gone', want: ['forget apps/app'] },
  ] as const)('$action → $want', async ({ action, want }) => {
    const l = ledger();
    const job = recordedPass(
      async () => ({ key: 'apps/app', action }),
      l,
      () => 42,
    );
    await expect(job('apps', 'app')).resolves.toEqual({ key: 'apps/app', action });
    expect(l.calls).toEqual(want);
  });
});

describe('queueTriggers', () => {
  it('enqueues and requeues, and a failed enqueue does not throw', async () => {
    const queued: unknown[] = [];
    const triggers = queueTriggers(
      {
        enqueue: async (key: string, reason: string, delayMs?: number) => {
          queued.push([key, reason, delayMs]);
          if (key === 'bad/one') throw new Error('redis down');
        },
      },
      new RunningOperations(),
      log,
    );
    triggers.enqueue('apps/app', 'watch');
    triggers.requeue('apps/app', 'retry', 5000);
    expect(() => triggers.enqueue('bad/one', 'watch')).not.toThrow();
    await new Promise((resolve) => setImmediate(resolve));
    expect(queued).toEqual([
      ['apps/app', 'watch', undefined],
      ['apps/app', 'retry', 5000],
      ['bad/one', 'watch', undefined],
    ]);
  });
  it('a newer generation cancels the running operation of an older one, not of the same', () => {
    const operations = new RunningOperations();
    const triggers = queueTriggers({ enqueue: async () => undefined }, operations, log);
    const running = operations.begin('apps/app', 2);
    triggers.onGeneration('apps/app', 2);
    expect(running.signal.aborted).toBe(false);
    triggers.onGeneration('apps/app', 3);
    expect(running.signal.aborted).toBe(true);
  });
});

describe('frozenReleaseKeys', () => {
  const release = (name: string, frozen: boolean): HelmRelease => ({
    apiVersion: 'helmcrew.dev/v1alpha1',
    kind: 'HelmRelease',
    metadata: { name, namespace: 'apps' },
    spec: { chart: { name: 'x' } },
    status: frozen ? { conditions: [{ type: 'Frozen', status: 'True', reason: 'Frozen', message: 'held', lastTransitionTime: '' }] } : {},
  });
  it('only the releases whose status says a freeze holds them', () => {
    expect(frozenReleaseKeys([release('a', true), release('b', false), release('c', true)])).toEqual(['apps/a', 'apps/c']);
  });
});
