import { AppsV1Api, CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HelmReleaseSpec } from '../../src/api/helmrelease.js';
import { API_GROUP, API_VERSION } from '../../src/api/vocabulary.js';
import { clusterKey } from '../../src/core/fleet/cluster-keys.js';
import { ProposalStore } from '../../src/core/proposals/proposal-store.js';
import type { Proposal } from '../../src/core/proposals/proposal.js';
import { connectRedis, type RedisConnection } from '../../src/core/redis.js';
import { pollUntil } from '../../src/dev/harness/poll.js';
import { applyHelmRelease, helmReleaseObject } from '../../src/dev/releases.js';
import { namespaceWithController, testEnv, uniqueName } from '../support/fixtures.js';
import { freezeNamespace } from '../support/namespace-freeze.js';
import { imageRegistryHost, pushImageTag } from '../support/oci.js';

/**
 * Issue 35, the controller's side, on the real parts: a local OCI registry (docker-registry), the
 * API server, helm and Redis. A tag pushed becomes the live Deployment's image on its own without
 * spec.approval; with it, a proposal in Redis that two votes approve, held by a freeze until it lifts.
 */
describe('image updates: new tags applied on their own, or proposed and applied once approved', () => {
  const { env, kubeConfig } = testEnv();
  const { namespace, ctl } = namespaceWithController('images', { HELMCREW_PROPOSALS_TICK_MS: '300' });
  const host = imageRegistryHost(env);
  const apps = kubeConfig.makeApiClient(AppsV1Api);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  let redis: RedisConnection;
  let store: ProposalStore;

  beforeAll(() => {
    redis = connectRedis(env.redisUrl);
    store = new ProposalStore(redis, clusterKey(ctl.prefix, 'proposals'));
  });
  afterAll(() => redis.disconnect());

  const pushTag = (repo: string, tag: string) => pushImageTag(host, repo, tag);

  const spec = (repo: string, extra: Partial<HelmReleaseSpec> = {}): HelmReleaseSpec => ({
    chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' },
    timeout: '90s',
    interval: '1s',
    values: { image: { repository: `${host}/${repo}` } },
    imageUpdates: [{ repository: `${host}/${repo}`, policy: { semver: '1.x' }, valuesPath: 'image.tag', interval: '1s', insecure: true }],
    ...extra,
  });

  /** The image of the release's Deployment, once it has one. */
  const liveImage = async (name: string) => {
    const deployments = (await apps.listNamespacedDeployment({ namespace })).items;
    return deployments.find((d) => d.metadata?.name?.includes(name))?.spec?.template.spec?.containers[0]?.image;
  };
  const waitForImage = (name: string, image: string, timeoutMs = 60_000) =>
    pollUntil(
      async () => ((await liveImage(name)) === image ? image : undefined),
      { timeoutMs },
      () => `${namespace}/${name}: the Deployment does not run ${image}`,
    );
  const proposalsOf = async (name: string) => (await store.list()).filter((p) => p.release.namespace === namespace && p.release.name === name);
  const waitForProposal = (name: string, test: (p: Proposal) => boolean, what: string) =>
    pollUntil(
      async () => (await proposalsOf(name)).find(test),
      { timeoutMs: 30_000 },
      () => `${namespace}/${name}: no proposal ${what}`,
    );
  const events = async (name: string, reason: string) =>
    (await core.listNamespacedEvent({ namespace, fieldSelector: `involvedObject.name=${name},reason=${reason}` })).items;

  it('without spec.approval a new tag reaches the live Deployment, and status says so', async () => {
    const repo = `${uniqueName('auto')}/web`;
    const name = 'auto';
    await pushTag(repo, '1.0.0');
    await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, name, spec(repo)));
    await waitForImage(name, `${host}/${repo}:1.0.0`);
    // A newer tag in the range (and one outside it, which is not taken).
    await pushTag(repo, '2.0.0');
    await pushTag(repo, '1.1.0');
    await waitForImage(name, `${host}/${repo}:1.1.0`);
    const release = (await custom.getNamespacedCustomObject({ group: API_GROUP, version: API_VERSION, plural: 'helmreleases', namespace, name })) as {
      status: { approvedOverrides: Array<{ valuesPath: string; value: string; approvers: string[] }>; approvedImages: string };
    };
    expect(release.status.approvedOverrides).toMatchObject([{ valuesPath: 'image.tag', value: '1.1.0', approvers: [] }]);
    expect(release.status.approvedImages).toBe(`${host}/${repo}:1.1.0`);
    expect((await proposalsOf(name)).map((p) => p.state.phase)).toEqual(['applied', 'applied']);
    expect(await events(name, 'ProposalApplied')).toHaveLength(2);
  });

  it('with spec.approval: a proposal, superseded by a newer tag, approved by two people, held by a freeze, applied when it lifts', async () => {
    const repo = `${uniqueName('gated')}/web`;
    const name = 'gated';
    await pushTag(repo, '1.0.0');
    await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, name, spec(repo, { approval: { required: 2, expireAfter: '1h' } })));
    const first = await waitForProposal(name, (p) => p.state.phase === 'open' && p.values[0]?.to === '1.0.0', 'open for 1.0.0');
    expect(first.facts.required).toBe(2);
    await pollUntil(
      async () => (await events(name, 'ProposalOpened')).length > 0 || undefined,
      { timeoutMs: 10_000 },
      () => 'no ProposalOpened event',
    );
    // Nothing applies on its own: the chart's own image stays.
    await waitForImage(name, `${host}/${repo}:1.27-alpine`);

    await pushTag(repo, '1.1.0');
    const second = await waitForProposal(name, (p) => p.state.phase === 'open' && p.values[0]?.to === '1.1.0', 'open for 1.1.0');
    expect(second.supersedes).toBe(first.id);
    expect((await store.get(first.id))?.state).toMatchObject({ phase: 'superseded', by: second.id });
    await pollUntil(
      async () => (await events(name, 'ProposalSuperseded')).length > 0 || undefined,
      { timeoutMs: 10_000 },
      () => 'no ProposalSuperseded event',
    );

    const vote = (person: string) => store.vote(second.id, { person, choice: 'approve', allowed: true, at: Date.now() });
    expect((await vote('slack:UALICE'))?.verdict.kind).toBe('counted');
    // A freeze on the namespace, then the second approval: the change waits for it.
    const freeze = await freezeNamespace(custom, namespace);
    try {
      expect((await vote('slack:UBOB'))?.verdict.kind).toBe('approved');
      await pollUntil(
        async () => (await events(name, 'Frozen')).length > 0 || undefined,
        { timeoutMs: 30_000 },
        () => 'the approved change was not held by the freeze',
      );
      expect((await store.get(second.id))?.state.phase).toBe('approved');
      expect(await liveImage(name)).toBe(`${host}/${repo}:1.27-alpine`);
    } finally {
      await freeze.lift();
    }
    await waitForImage(name, `${host}/${repo}:1.1.0`);
    expect((await store.get(second.id))?.state).toEqual({ phase: 'applied', approvers: ['slack:UALICE', 'slack:UBOB'] });
    const applied = await events(name, 'ProposalApplied');
    expect(applied.map((e) => e.message)).toEqual([expect.stringContaining('approved by slack:UALICE, slack:UBOB')]);
  });
});
