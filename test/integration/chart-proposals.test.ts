import { AppsV1Api, CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { clusterKey } from '../../src/core/fleet/cluster-keys.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { ProposalStore } from '../../src/core/proposals/proposal-store.js';
import type { Proposal } from '../../src/core/proposals/proposal.js';
import { connectRedis, type RedisConnection } from '../../src/core/redis.js';
import { renderProposalMessage } from '../../src/core/slack/proposal-message.js';
import { pollUntil } from '../../src/dev/harness/poll.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { chartFolder, publish, startTestChartServer, type TestChartServer } from '../support/chart-servers.js';
import { freezeNamespace } from '../support/namespace-freeze.js';
import { namespaceWithController, testEnv, uniqueName } from '../support/fixtures.js';
import { pushUnicorn, registryPath } from '../support/oci.js';

/**
 * Issue 35, chart versions, on the real parts (the API server, helm, Redis, a chart repository
 * served here): with spec.approval a newer version in the range is one proposal (told with its
 * plan diff) and the release stays; a still newer one supersedes it; two approvals upgrade the live Deployment, held by a
 * freeze until it lifts; a new spec.chart.version makes the approved version give way.
 */
describe('chart versions: proposed with spec.approval, in effect once approved', () => {
  const { env, kubeConfig } = testEnv();
  const { namespace, ctl } = namespaceWithController('charts', { HELMCREW_PROPOSALS_TICK_MS: '300' });
  const apps = kubeConfig.makeApiClient(AppsV1Api);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const api = new HelmReleaseApi(makeKubeClients(kubeConfig));
  const name = 'held';
  let repo: TestChartServer;
  let redis: RedisConnection;
  let store: ProposalStore;

  beforeAll(async () => {
    repo = await startTestChartServer(await chartFolder(env, ['1.0.0']));
    redis = connectRedis(env.redisUrl);
    store = new ProposalStore(redis, clusterKey(ctl.prefix, 'proposals'));
  });
  afterAll(async () => {
    redis?.disconnect();
    await repo?.stop();
  });

  const declare = (version: string, name = 'held', chart: Partial<HelmRelease['spec']['chart']> = { repository: repo.url }) =>
    applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, name, {
        chart: { name: 'unicorn', version, ...chart },
        interval: '1s',
        timeout: '60s',
        approval: { required: 2, expireAfter: '1h' },
      }),
    );
  /** The chart version the live Deployment was rendered from (its helm.sh/chart label). */
  const liveChart = async (release = name) =>
    (await apps.listNamespacedDeployment({ namespace })).items.find((d) => d.metadata?.name?.includes(release))?.metadata?.labels?.['helm.sh/chart'];
  const waitForLiveChart = (chart: string, release = name) =>
    pollUntil(
      async () => ((await liveChart(release)) === chart ? chart : undefined),
      { timeoutMs: 60_000 },
      () => `the Deployment was not rendered from ${chart}`,
    );
  const waitForProposal = (test: (p: Proposal) => boolean, what: string, release = name) =>
    pollUntil(
      async () => (await store.list()).find((p) => p.release.namespace === namespace && p.release.name === release && test(p)),
      { timeoutMs: 30_000 },
      () => `no proposal ${what}`,
    );
  const events = async (reason: string) => (await core.listNamespacedEvent({ namespace, fieldSelector: `involvedObject.name=${name},reason=${reason}` })).items;
  const waitForEvent = (reason: string) =>
    pollUntil(
      async () => ((await events(reason)).length > 0 ? true : undefined),
      { timeoutMs: 30_000 },
      () => `no ${reason} event`,
    );
  const current = async (): Promise<HelmRelease> => (await api.get(namespace, name))!;

  it('a newer version is proposed, superseded, approved, held by a freeze, applied; a new spec.chart.version takes over', async () => {
    // The first install takes the newest in the range: nothing runs yet.
    const installed = await waitForReconciled(kubeConfig, namespace, name, await declare('>=1.0.0 <4.0.0'));
    expect(installed.status?.history?.[0]).toMatchObject({ chartVersion: '1.0.0' });

    await publish(env, repo.dir, ['2.0.0']);
    const first = await waitForProposal((p) => p.kind === 'chart' && p.state.phase === 'open', 'open for 2.0.0');
    expect(first).toMatchObject({ chartVersion: { from: '1.0.0', to: '2.0.0' }, values: [], facts: { required: 2 } });
    await waitForEvent('ProposalOpened');
    // Told by the leader's tick with the plan diff of the new version, in the message notify renders.
    const told = (await store.get(first.id))!;
    expect(told.unannounced).toBeUndefined();
    expect(told.diff).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^objects: .*changed/),
        expect.stringMatching(/^~ Deployment (\S+\/)?held$/),
        // The label's change, at a readable path, with its values.
        expect.stringMatching(/^ {2}(spec\.template\.)?metadata\.labels\["helm\.sh\/chart"\]: \S*1\.0\.0 → \S*2\.0\.0$/),
      ]),
    );
    expect(JSON.stringify(renderProposalMessage(told, { state: told.state, now: Date.now() }).blocks)).toContain('What it would change');
    // The pass that proposed it stayed: nothing attempted, the Deployment as it was.
    const staying = (await current()).status;
    expect(staying?.lastAttemptedChartVersion).toBe('1.0.0');
    expect(staying?.history?.[0]?.chartVersion).toBe('1.0.0');
    expect(await liveChart()).toBe('unicorn-1.0.0');

    await publish(env, repo.dir, ['3.0.0']);
    const second = await waitForProposal((p) => p.kind === 'chart' && p.state.phase === 'open' && p.chartVersion?.to === '3.0.0', 'open for 3.0.0');
    expect(second.supersedes).toBe(first.id);
    expect((await store.get(first.id))?.state).toMatchObject({ phase: 'superseded', by: second.id });
    await waitForEvent('ProposalSuperseded');
    // Opened once, however many passes saw the new version.
    expect((await store.list()).filter((p) => p.release.namespace === namespace && p.release.name === name)).toHaveLength(2);

    const vote = (person: string) => store.vote(second.id, { person, choice: 'approve', allowed: true, at: Date.now() });
    expect((await vote('slack:UALICE'))?.verdict.kind).toBe('counted');
    const freeze = await freezeNamespace(custom, namespace);
    try {
      expect((await vote('slack:UBOB'))?.verdict.kind).toBe('approved');
      await waitForEvent('Frozen');
      expect((await store.get(second.id))?.state.phase).toBe('approved');
      expect((await current()).status?.approvedChart).toBeUndefined();
      expect(await liveChart()).toBe('unicorn-1.0.0');
    } finally {
      await freeze.lift();
    }

    await waitForLiveChart('unicorn-3.0.0');
    const upgraded = await current();
    expect(upgraded.status?.approvedChart).toMatchObject({
      version: '3.0.0',
      declared: '>=1.0.0 <4.0.0',
      proposalId: second.id,
      approvers: ['slack:UALICE', 'slack:UBOB'],
    });
    expect(upgraded.status?.approvedChart?.proposedBy).toBeUndefined();
    expect((await store.get(second.id))?.state).toEqual({ phase: 'applied', approvers: ['slack:UALICE', 'slack:UBOB'] });
    expect((await events('ProposalApplied')).map((e) => e.message)).toEqual([expect.stringContaining('approved by slack:UALICE, slack:UBOB')]);

    // A person (or Git) sets the version: the approved one gives way, the spec's is installed.
    await declare('2.0.0');
    await waitForLiveChart('unicorn-2.0.0');
    await pollUntil(
      async () => ((await current()).status?.approvedChart === undefined ? true : undefined),
      { timeoutMs: 10_000 },
      () => 'status.approvedChart was not dropped',
    );
  });

  it('oci://: the version in effect and the newer one from the same tag list; approved, it is pulled by its digest and installed', async () => {
    const url = registryPath(env.ociRegistry.url, uniqueName('proposed'));
    const release = 'held-oci';
    await pushUnicorn(env, url, '1.0.0');
    await waitForReconciled(kubeConfig, namespace, release, await declare('1.x || 2.x', release, { repository: url, insecure: true }));
    await pushUnicorn(env, url, '2.0.0');
    const proposal = await waitForProposal((p) => p.kind === 'chart' && p.state.phase === 'open', 'open for 2.0.0', release);
    expect(proposal.chartVersion).toEqual({ from: '1.0.0', to: '2.0.0' });
    expect(await liveChart(release)).toBe('unicorn-1.0.0');
    for (const person of ['slack:UALICE', 'slack:UBOB']) await store.vote(proposal.id, { person, choice: 'approve', allowed: true, at: Date.now() });
    await waitForLiveChart('unicorn-2.0.0', release);
    expect((await api.get(namespace, release))?.status?.approvedChart).toMatchObject({ version: '2.0.0', declared: '1.x || 2.x' });
  });
});
