import { describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { RetryLaterError } from '../../src/controller/reconcile/ports/context.js';
import { Registry } from 'prom-client';
import { ControllerMetrics, countByReady, passLabels, readyState } from '../../src/controller/metrics/controller-metrics.js';
import { failingChecks } from '../../src/core/metrics/health-server.js';
import { oldestAgeSeconds } from '../../src/core/metrics/queue-metrics.js';
import { buttonVerb, commandVerb } from '../../src/bot/metrics/bot-metrics.js';
import { PermanentDeliveryError, RetryableDeliveryError } from '../../src/notify/contract.js';
import { deliveryResult } from '../../src/notify/metrics/notify-metrics.js';

const release = (ready?: 'True' | 'False' | 'Unknown') =>
  ({ metadata: { name: 'r', namespace: 'n' }, spec: {}, status: ready ? { conditions: [{ type: 'Ready', status: ready }] } : {} }) as unknown as HelmRelease;

describe('metric decisions', () => {
  it('counts releases by their Ready condition, every state present', () => {
    expect(readyState(release('True'))).toBe('true');
    expect(readyState(release('Unknown'))).toBe('unknown');
    expect(readyState(release())).toBe('unknown');
    expect(countByReady([release('True'), release('False'), release('False'), release()])).toEqual({ true: 1, false: 2, unknown: 1 });
    expect(countByReady([])).toEqual({ true: 0, false: 0, unknown: 0 });
  });

  it('labels a pass by its action, or by the kind of error it threw', () => {
    expect(passLabels({ action: 'install' })).toEqual({ action: 'install', result: 'success' });
    expect(passLabels({ error: new RetryLaterError('chart not found') })).toEqual({ action: 'retry-later', result: 'error' });
    expect(passLabels({ error: new Error('boom') })).toEqual({ action: 'unexpected-error', result: 'error' });
  });

  it('ages the oldest waiting job, 0 when none waits', () => {
    expect(oldestAgeSeconds([], 10_000)).toBe(0);
    expect(oldestAgeSeconds([4000, 8000, Number.NaN], 10_000)).toBe(6);
    expect(oldestAgeSeconds([12_000], 10_000)).toBe(0);
  });

  it('names the readiness checks that fail, a throwing one included', async () => {
    const failing = await failingChecks([
      { name: 'informers', ready: () => true },
      { name: 'redis', ready: () => Promise.reject(new Error('down')) },
      { name: 'slack', ready: async () => false },
    ]);
    expect(failing).toEqual(['redis', 'slack']);
  });
});

describe("the node's shared helm slots in the metrics", () => {
  it('reads the waiting gauge and both counters at scrape time, the counters growing by what grew since the last scrape', async () => {
    const registry = new Registry();
    const counts = { queued: 2, refused: 3, unleased: 0 };
    new ControllerMetrics(registry).countNodeSlots(counts);
    const read = async (name: string) => (await registry.getSingleMetric(name)!.get()).values[0]?.value;
    expect(await read('helmcrew_node_helm_slot_waiting')).toBe(2);
    expect(await read('helmcrew_node_helm_slot_refusals_total')).toBe(3);
    expect(await read('helmcrew_node_helm_slot_unleased_total')).toBe(0);
    Object.assign(counts, { queued: 0, refused: 5, unleased: 1 });
    expect(await read('helmcrew_node_helm_slot_waiting')).toBe(0);
    expect(await read('helmcrew_node_helm_slot_refusals_total')).toBe(5);
    expect(await read('helmcrew_node_helm_slot_unleased_total')).toBe(1);
    expect(await registry.metrics()).toContain('helmcrew_node_helm_slot_refusals_total 5');
  });
});

describe('notify and bot metric labels', () => {
  it('a delivery result comes from what the provider threw', () => {
    expect(deliveryResult(undefined)).toBe('success');
    expect(deliveryResult(new PermanentDeliveryError('channel_not_found', 'no such channel'))).toBe('permanent');
    expect(deliveryResult(new RetryableDeliveryError('503'))).toBe('retryable');
    expect(deliveryResult(new TypeError('bug'))).toBe('error');
  });

  it('a chat verb is the parsed verb, "invalid" otherwise; buttons from a closed set', () => {
    expect(commandVerb('rollback unicorn')).toBe('rollback');
    expect(commandVerb('list')).toBe('list');
    expect(commandVerb('drop table releases')).toBe('invalid');
    expect(buttonVerb('release_confirm')).toBe('confirm');
    expect(buttonVerb('release_status')).toBe('status');
    expect(buttonVerb('release_something_new')).toBe('other');
  });
});
