import { describe, expect, it } from 'vitest';
import { clusterOf, clustersMatch, describeClusters, globMatches } from '../../src/core/fleet/cluster-match.js';
import { clustersToServe, needsIndex, parseNotifyClusters } from '../../src/notify/fleet-clusters.js';

describe('globMatches', () => {
  it.each([
    ['prod-eu', 'prod-eu', true],
    ['prod-eu', 'prod-us', false],
    ['prod-*', 'prod-eu', true],
    ['prod-*', 'prod-', true],
    ['prod-*', 'staging-eu', false],
    ['*-eu', 'prod-eu', true],
    ['*-eu', 'prod-eu-2', false],
    ['*', 'anything', true],
    ['p*d-*-1', 'prod-eu-1', true],
    ['p*d-*-1', 'prod-eu-2', false],
    ['a*a', 'a', false],
    ['*a*a*', 'aa', true],
    ['prod', 'production', false],
  ])('%s against %s: %s', (pattern, text, want) => {
    expect(globMatches(pattern, text)).toBe(want);
  });
});

describe('clustersMatch', () => {
  it('no clusters field means every cluster, named or not', () => {
    expect(clustersMatch(undefined, 'prod-eu')).toBe(true);
    expect(clustersMatch(undefined, undefined)).toBe(true);
  });

  it('a field takes in only the clusters one of its patterns names', () => {
    expect(clustersMatch(['staging-*'], 'staging-eu')).toBe(true);
    expect(clustersMatch(['staging-*'], 'prod-eu')).toBe(false);
    expect(clustersMatch(['prod-eu', 'staging-*'], 'prod-eu')).toBe(true);
  });

  it('an unnamed cluster is `default`', () => {
    expect(clusterOf(undefined)).toBe('default');
    expect(clustersMatch(['default'], undefined)).toBe(true);
    expect(clustersMatch(['prod-*'], undefined)).toBe(false);
  });

  it('a glob target is covered only by patterns that take in every cluster it names', () => {
    expect(clustersMatch(['prod-*'], 'prod-*')).toBe(true);
    expect(clustersMatch(['*'], 'prod-*')).toBe(true);
    expect(clustersMatch(['prod-*'], 'prod-eu-*')).toBe(true);
    expect(clustersMatch(['prod-eu'], 'prod-*')).toBe(false);
    expect(clustersMatch(['prod-*'], '*')).toBe(false);
    expect(clustersMatch(['*-eu'], 'prod-*')).toBe(false);
  });

  it('describes a field for a refusal', () => {
    expect(describeClusters(undefined)).toBe('every cluster');
    expect(describeClusters(['staging-*', 'dev'])).toBe('clusters staging-*, dev');
  });
});

describe('HELMCREW_NOTIFY_CLUSTERS', () => {
  it('reads names and globs, and refuses what is neither', () => {
    expect(parseNotifyClusters(' prod-eu, staging-* ')).toEqual({ ok: true, patterns: ['prod-eu', 'staging-*'] });
    expect(parseNotifyClusters(undefined)).toEqual({ ok: true, patterns: [] });
    const bad = parseNotifyClusters('prod-eu,Prod_US');
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.message).toContain('"Prod_US"');
  });

  it('serves plain names at once and the indexed clusters a glob matches', () => {
    expect(needsIndex(['prod-eu'])).toBe(false);
    expect(needsIndex(['prod-*'])).toBe(true);
    expect(clustersToServe(['edge', 'prod-*'], ['prod-us', 'home', 'prod-eu', 'edge'])).toEqual(['edge', 'prod-eu', 'prod-us']);
    expect(clustersToServe(['*'], ['b', 'a'])).toEqual(['a', 'b']);
  });
});
