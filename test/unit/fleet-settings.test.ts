import { describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { ProposalStore } from '../../src/core/proposals/proposal-store.js';
import type { RedisConnection } from '../../src/core/redis.js';
import { proposalReach, readFleetSettings } from '../../src/session/fleet/fleet-settings.js';
import type { ClusterDeps, FleetRouting } from '../../src/session/flow/fleet-routing.js';

/** A release as a cluster's reads return it; only its name matters here. */
const release = (namespace: string, name: string) => ({ metadata: { namespace, name } }) as HelmRelease;
const reads = (...held: HelmRelease[]): Pick<ClusterDeps['api'], 'get'> => ({
  get: async (namespace, name) => held.find((r) => r.metadata.namespace === namespace && r.metadata.name === name),
});
/** A fleet of `home` (own) and `edge` (through its agent); `far` is unreachable. */
const router: FleetRouting = {
  own: 'home',
  members: async () => [],
  route: async (cluster) =>
    cluster === 'edge'
      ? { ok: true, deps: { api: { ...reads(release('shop', 'web')), list: async () => ({ items: [] }) } } as unknown as ClusterDeps }
      : { ok: false, message: `cluster ${cluster} is unreachable` },
};
const settings = { own: 'home', fleetPrefix: 'hc', keysDir: '/keys', timeoutMs: 10_000 };
const redis = {} as RedisConnection;

describe('the fleet settings the bot and the web share', () => {
  it('are read from HELMCREW_FLEET_KEYS_DIR, or there is no fleet', () => {
    expect(readFleetSettings({})).toBeUndefined();
    // HELMCREW_NAMESPACE: where the fleet notify keeps its Slack message references, as notify reads it.
    expect(
      readFleetSettings({ HELMCREW_FLEET_KEYS_DIR: '/keys', HELMCREW_CLUSTER_NAME: 'home', HELMCREW_QUEUE_PREFIX: 'hc', HELMCREW_NAMESPACE: 'helmcrew' }),
    ).toEqual({ ...settings, notifyNamespace: 'helmcrew' });
    expect(() => readFleetSettings({ HELMCREW_FLEET_KEYS_DIR: '/keys', HELMCREW_FLEET_TIMEOUT_SECONDS: '301' })).toThrow(/HELMCREW_FLEET_TIMEOUT_SECONDS/);
  });
});

describe('where a proposal’s vote goes (proposalReach)', () => {
  const own = reads(release('shop', 'local'));

  it('without a fleet: the own cluster’s store and release; another cluster is out of reach, said by the speaker', async () => {
    const reach = proposalReach({ redis, own: 'home', keyPrefix: '{hc:home}', api: own, speaker: 'this server' });
    expect(reach.showCluster).toBe(false);
    expect(reach.store('home')).toBeInstanceOf(ProposalStore);
    expect(reach.store('edge')).toBe('the proposal is from cluster edge; this server drives only its own (home)');
    expect(await reach.locate('home', 'shop', 'local')).toMatchObject({ ok: true, local: true });
    expect(await reach.locate('home', 'shop', 'gone')).toEqual({ ok: false, message: 'shop/gone no longer exists' });
  });

  it('in a fleet: every cluster’s store; another cluster’s release read through its agent, never locally', async () => {
    const reach = proposalReach({ redis, own: 'home', keyPrefix: '{hc:home}', api: own, fleet: { settings, router }, speaker: 'this bot' });
    expect(reach.showCluster).toBe(true);
    expect(reach.store('edge')).toBeInstanceOf(ProposalStore);
    expect(await reach.locate('edge', 'shop', 'web')).toMatchObject({ ok: true, local: false, release: { metadata: { name: 'web' } } });
    expect(await reach.locate('edge', 'shop', 'local')).toEqual({ ok: false, message: 'shop/local no longer exists in cluster edge' });
    expect(await reach.locate('far', 'shop', 'web')).toEqual({ ok: false, message: 'cluster far is unreachable' });
    expect(await reach.locate('home', 'shop', 'local')).toMatchObject({ ok: true, local: true });
  });
});
