import { describe, expect, it } from 'vitest';
import {
  clusterAclPattern,
  clusterKey,
  clusterKeyspace,
  clusterSlotProblem,
  DEFAULT_CLUSTER,
  fleetBase,
  fleetIndexKey,
  hashTag as keyHashTag,
  parseClusterName,
  prefixProblem,
} from '../../src/core/fleet/cluster-keys.js';
import { readSharedConfig } from '../../src/core/config/env.js';
import { readSessionConfig } from '../../src/session/flow/config.js';

/** Redis Cluster's slot rule: the part between the first `{` and the next `}`, when not empty. */
function hashTag(key: string): string {
  const open = key.indexOf('{');
  const close = open < 0 ? -1 : key.indexOf('}', open + 1);
  return open >= 0 && close > open + 1 ? key.slice(open + 1, close) : key;
}

describe('cluster names', () => {
  it.each([
    { given: undefined, want: DEFAULT_CLUSTER },
    { given: '', want: DEFAULT_CLUSTER },
    { given: '  ', want: DEFAULT_CLUSTER },
    { given: 'prod-eu', want: 'prod-eu' },
    { given: ' edge ', want: 'edge' },
  ])('$given names $want', ({ given, want }) => {
    expect(parseClusterName(given)).toEqual({ ok: true, name: want });
  });

  it.each(['Prod', 'prod_eu', 'prod:eu', 'edge*', '{edge}', '-edge', 'edge-', 'a'.repeat(64)])('%s is refused with the rule', (given) => {
    const parsed = parseClusterName(given);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.message).toMatch(/HELMCREW_CLUSTER_NAME must be a DNS label.*got/);
  });
});

describe('keyspaces', () => {
  it.each([
    { prefix: 'helmcrew', cluster: DEFAULT_CLUSTER, want: 'helmcrew' },
    { prefix: '{helmcrew}', cluster: DEFAULT_CLUSTER, want: '{helmcrew}' },
    { prefix: 'helmcrew', cluster: 'prod-eu', want: '{helmcrew:prod-eu}' },
    { prefix: '{helmcrew}', cluster: 'prod-eu', want: '{helmcrew:prod-eu}' },
  ])('$prefix and $cluster give $want', ({ prefix, cluster, want }) => {
    expect(clusterKeyspace(prefix, cluster)).toBe(want);
  });

  it('every key and queue of a named cluster hashes to the one slot of its tag, and the two clusters to different tags', () => {
    const keys = (cluster: string) => {
      const ks = clusterKeyspace('helmcrew', cluster);
      return [
        `${ks}:reconcile:wait`, // BullMQ's own keys: <prefix>:<queue>:<suffix>
        `${ks}:command:events`,
        clusterKey(ks, 'checked'),
        clusterKey(ks, 'agents'),
        clusterKey(ks, 'commandNonce', 'n1'),
        clusterKey(ks, 'notifyMailbox', 'm1'),
        clusterKey(ks, 'botPlan', 'p1'),
      ];
    };
    expect(new Set(keys('edge').map(hashTag))).toEqual(new Set(['helmcrew:edge']));
    expect(new Set(keys('home').map(hashTag))).toEqual(new Set(['helmcrew:home']));
  });

  it('a cluster’s ACL pattern matches its keys and none of another cluster’s or the fleet index', () => {
    const pattern = clusterAclPattern('helmcrew', 'edge');
    const glob = new RegExp(`^${pattern.replace(/[{}]/g, '\\$&').replace('*', '.*')}$`);
    expect(glob.test(clusterKey(clusterKeyspace('helmcrew', 'edge'), 'checked'))).toBe(true);
    expect(glob.test(clusterKey(clusterKeyspace('helmcrew', 'home'), 'checked'))).toBe(false);
    expect(glob.test(clusterKey(clusterKeyspace('helmcrew', 'edge-2'), 'checked'))).toBe(false);
    expect(glob.test(fleetIndexKey('helmcrew'))).toBe(false);
  });

  it('keys are the keyspace, the kind, and the id when there is one', () => {
    expect(clusterKey('hc', 'checked')).toBe('hc:checked');
    expect(clusterKey('hc', 'notifyRate', 'slack:C1')).toBe('hc:notify:rate:slack:C1');
    expect(clusterKey('{hc:edge}', 'commandNonce', 'abc')).toBe('{hc:edge}:command:nonce:abc');
    expect(fleetIndexKey('{hc}')).toBe('{hc}:fleet:clusters');
    expect(fleetBase('{hc}')).toBe('hc');
  });

  it.each(['hc*', 'h c', 'a:b', '{a}b', ''])('the prefix %j cannot hold named clusters', (prefix) => {
    expect(prefixProblem(prefix)).toMatch(/HELMCREW_QUEUE_PREFIX must not contain/);
  });
});

describe('Redis Cluster: a keyspace must carry a hash tag', () => {
  it.each([
    { key: '{helmcrew}:reconcile:wait', tag: 'helmcrew' },
    { key: '{helmcrew:edge}:checked', tag: 'helmcrew:edge' },
    { key: 'hc-{x}:notify:mailbox:1', tag: 'x' },
    { key: 'a{}b{c}', tag: undefined }, // the first { and the next } only: empty, so the whole key
    { key: 'helmcrew:reconcile:wait', tag: undefined },
    { key: '{helmcrew:reconcile', tag: undefined },
  ])('$key → $tag', ({ key, tag }) => {
    expect(keyHashTag(key)).toBe(tag);
    expect(hashTag(key)).toBe(tag ?? key);
  });

  it('a tag-less default keyspace is refused with the value to set; a named cluster’s never is', () => {
    expect(clusterSlotProblem('helmcrew')).toMatch(/"helmcrew" has no hash tag.*HELMCREW_QUEUE_PREFIX=\{helmcrew\} \(braces included/);
    expect(clusterSlotProblem(clusterKeyspace('{helmcrew}', DEFAULT_CLUSTER))).toBeUndefined();
    expect(clusterSlotProblem(clusterKeyspace('helmcrew', 'edge'))).toBeUndefined();
  });
});

describe('every part reads the same keyspace', () => {
  const base = { REDIS_URL: 'redis://127.0.0.1:6379', HELMCREW_QUEUE_PREFIX: 'hc' };

  it('no cluster name: the prefix as today', () => {
    expect(readSharedConfig(base)).toMatchObject({ queuePrefix: 'hc', fleetPrefix: 'hc', cluster: 'default' });
    expect(readSessionConfig(base).keyPrefix).toBe('hc');
  });

  it('a cluster name: its hash-tagged keyspace, for the controller and notify as for the bot', () => {
    const env = { ...base, HELMCREW_CLUSTER_NAME: 'edge' };
    expect(readSharedConfig(env)).toMatchObject({ queuePrefix: '{hc:edge}', fleetPrefix: 'hc', cluster: 'edge' });
    expect(readSessionConfig(env).keyPrefix).toBe('{hc:edge}');
  });

  it('a bad name or a prefix that cannot take one stops start-up naming the variable', () => {
    expect(() => readSharedConfig({ ...base, HELMCREW_CLUSTER_NAME: 'Edge!' })).toThrow(/HELMCREW_CLUSTER_NAME must be a DNS label/);
    expect(() => readSharedConfig({ ...base, HELMCREW_QUEUE_PREFIX: 'a*b', HELMCREW_CLUSTER_NAME: 'edge' })).toThrow(/HELMCREW_QUEUE_PREFIX must not contain/);
    expect(readSharedConfig({ ...base, HELMCREW_QUEUE_PREFIX: 'a:b' }).queuePrefix).toBe('a:b');
  });
});

describe('the leader Lease follows the keyspace', () => {
  it('two clusters on one API server hold two Leases; two replicas of one cluster share one', async () => {
    const { leaseName } = await import('../../src/controller/leader/lease-decision.js');
    expect(leaseName(clusterKeyspace('helmcrew', 'edge'))).toBe('helmcrew-edge--controller-leader');
    expect(leaseName(clusterKeyspace('helmcrew', 'home'))).toBe('helmcrew-home--controller-leader');
    expect(leaseName(clusterKeyspace('helmcrew', DEFAULT_CLUSTER))).toBe('helmcrew-controller-leader');
  });
});
