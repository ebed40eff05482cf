import { describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { diffValues } from '../../src/session/plan/values-diff.js';
import { historyForFleet, maskKeyOf, newQuery, releaseForFleet, signQuery, verifyQuery } from '../../src/core/fleet/fleet-query.js';
import { summarizeHistory, type StoredRelease } from '../../src/core/helm-storage/release-storage.js';

const KEY = 'k'.repeat(40);
const NOW = Date.parse('2026-11-26T16:00:00Z');

describe('fleet read-only queries', () => {
  const query = newQuery('edge', { kind: 'get', namespace: 'web', name: 'unicorn' }, NOW);

  it('are answered only when signed for this cluster with its key, and not expired', () => {
    expect(verifyQuery(signQuery(query, KEY), 'edge', KEY, NOW)).toEqual({ ok: true, query });
    expect(verifyQuery(signQuery(query, KEY), 'home', KEY, NOW)).toMatchObject({ ok: false, message: expect.stringContaining('signed for cluster "edge"') });
    expect(verifyQuery(signQuery(query, 'h'.repeat(40)), 'edge', KEY, NOW)).toMatchObject({ ok: false, message: expect.stringContaining('signature') });
    expect(verifyQuery(signQuery(query, KEY), 'edge', KEY, NOW + 61_000)).toMatchObject({ ok: false, message: expect.stringContaining('expired') });
    const altered = { ...signQuery(query, KEY), query: { ...query, question: { kind: 'get', namespace: 'kube-system', name: 'unicorn' } } };
    expect(verifyQuery(altered, 'edge', KEY, NOW)).toMatchObject({ ok: false, message: expect.stringContaining('signature') });
    expect(verifyQuery({ query: { ...query, question: { kind: 'exec' } }, signature: '00' }, 'edge', KEY, NOW)).toEqual({
      ok: false,
      message: 'not a signed query',
    });
    expect(verifyQuery(null, 'edge', KEY, NOW)).toEqual({ ok: false, message: 'not a signed query' });
  });

  it('answers carry no value, no last-applied copy, no managed fields; which value paths differ still shows', () => {
    const release = {
      metadata: {
        namespace: 'web',
        name: 'unicorn',
        generation: 2,
        managedFields: [{ manager: 'kubectl' }],
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"spec":{"values":{"password":"hunter2"}}}', 'helmcrew.dev/suspension': '{}' },
      },
      spec: { chart: { name: 'unicorn', version: '1.0.0' }, values: { password: 'hunter2', replicas: 3 } },
    } as unknown as HelmRelease;
    const mask = maskKeyOf(KEY);
    const shipped = releaseForFleet(release, mask);
    const text = JSON.stringify(shipped);
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('managedFields');
    expect(shipped.metadata.annotations).toEqual({ 'helmcrew.dev/suspension': '{}' });
    expect(shipped.spec.chart).toEqual(release.spec.chart);
    const stored = (revision: number, config: Record<string, unknown>): StoredRelease => ({
      name: 'unicorn',
      namespace: 'web',
      revision,
      status: revision === 2 ? 'deployed' : 'superseded',
      chartName: 'unicorn',
      chartVersion: '1.0.0',
      config,
      manifest: 'kind: Secret\ndata: {password: aHVudGVyMg==}',
    });
    const history = historyForFleet(summarizeHistory([stored(1, { password: 'hunter2', replicas: 3 }), stored(2, { password: 'hunter3', replicas: 3 })]), mask);
    const historyText = JSON.stringify(history);
    expect(historyText).not.toContain('hunter');
    expect(historyText).not.toContain('aHVudGVyMg');
    expect(history.deployed?.revision).toBe(2);
    // Paths that differ still differ, equal ones stay equal: the bot's `diff` and rollback plans read them.
    expect(diffValues(history.deployed!.config, shipped.spec.values as Record<string, unknown>)).toEqual({ added: [], removed: [], changed: ['password'] });
    // Another cluster's key masks differently: a digest does not tell one cluster's values to another.
    expect(JSON.stringify(releaseForFleet(release, maskKeyOf('z'.repeat(40))).spec.values)).not.toEqual(JSON.stringify(shipped.spec.values));
  });
});
