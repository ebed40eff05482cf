import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HelmReleaseSpec, ImageUpdate } from '../../src/api/helmrelease.js';
import { clusterKey } from '../../src/core/fleet/cluster-keys.js';
import { ProposalStore } from '../../src/core/proposals/proposal-store.js';
import { connectRedis, type RedisConnection } from '../../src/core/redis.js';
import { applyHelmRelease, helmReleaseObject } from '../../src/dev/releases.js';
import { cosignKeyPair, cosignSign, ociReference, type CosignKeyPair } from '../support/cosign.js';
import { eventually } from '../support/eventually.js';
import { namespaceWithController, testEnv, uniqueName } from '../support/fixtures.js';
import { notationSign, notationSigner, trustPolicy, type NotationSigner } from '../support/notation.js';
import { imageRegistryHost, pushImageTag } from '../support/oci.js';

/** imageUpdates[].verify: a tag is proposed only when its image is signed by an accepted key (the real cosign, notation-go). */
describe('signed images in proposals', () => {
  const { env, kubeConfig } = testEnv();
  const logFile = join(tmpdir(), `${uniqueName('helmcrew-imgsig-log')}.jsonl`);
  const log = pino({ level: 'info', base: { component: 'controller' } }, pino.destination({ dest: logFile, sync: true }));
  const { namespace, ctl } = namespaceWithController('imgsig', { HELMCREW_PROPOSALS_TICK_MS: '300' }, log);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const host = imageRegistryHost(env);
  let redis: RedisConnection;
  let store: ProposalStore;
  let team: CosignKeyPair;
  let signer: NotationSigner;

  beforeAll(async () => {
    redis = connectRedis(env.redisUrl);
    store = new ProposalStore(redis, clusterKey(ctl.prefix, 'proposals'));
    team = await cosignKeyPair();
    await core.createNamespacedSecret({ namespace, body: { metadata: { name: 'image-keys' }, stringData: { 'cosign.pub': team.publicKey } } });
    signer = await notationSigner('Example', 'image-signer');
    await core.createNamespacedSecret({
      namespace,
      body: { metadata: { name: 'image-trust' }, stringData: { 'trustpolicy.json': trustPolicy(), 'ca.crt': signer.caPem } },
    });
  });
  afterAll(() => redis.disconnect());

  const spec = (repo: string, extra: Partial<ImageUpdate> = {}): HelmReleaseSpec => ({
    chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' },
    timeout: '90s',
    values: { image: { repository: `${host}/${repo}` } },
    // Approvals asked: a proposal stays open, to be read.
    approval: { required: 1, expireAfter: '1h' },
    imageUpdates: [
      {
        repository: `${host}/${repo}`,
        policy: { semver: '1.x' },
        valuesPath: 'image.tag',
        interval: '1s',
        insecure: true,
        verify: { provider: 'cosign', secretRef: { name: 'image-keys' } },
        ...extra,
      },
    ],
  });
  const summaries = async (name: string) =>
    (await store.list()).filter((p) => p.release.namespace === namespace && p.release.name === name).map((p) => p.summary);
  const pushSigned = async (repo: string, tag: string) => {
    await pushImageTag(host, repo, tag);
    await cosignSign(team, await ociReference(`oci://${host}/${repo}`, tag));
  };

  it('proposes a signed tag, naming the signer; an unsigned newer tag is not proposed', async () => {
    const repo = `${uniqueName('signed')}/web`;
    await pushSigned(repo, '1.0.0');
    await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'signed', spec(repo)));
    await eventually(async () => expect(await summaries('signed')).toContain(`image ${host}/${repo} (chart default) → 1.0.0 (signed by cosign.pub)`), {
      timeoutMs: 60_000,
    });
    const opened = await eventually(
      async () => {
        const events = await core.listNamespacedEvent({ namespace, fieldSelector: 'involvedObject.name=signed,reason=ProposalOpened' });
        expect(events.items).toHaveLength(1);
        return events.items[0]!;
      },
      { timeoutMs: 20_000 },
    );
    expect(opened.message).toContain('(signed by cosign.pub)');

    // 1.1.0 unsigned: the watcher says why it is not proposed, and no proposal names it.
    await pushImageTag(host, repo, '1.1.0');
    await eventually(
      async () => expect(await readFile(logFile, 'utf8')).toContain(`image update: ${host}/${repo}:1.1.0 is not proposed: cosign: no signature`),
      { timeoutMs: 30_000 },
    );
    expect((await summaries('signed')).filter((s) => s.includes('1.1.0'))).toEqual([]);
  });

  it('with allowUnsigned, an unsigned tag is proposed marked UNSIGNED', async () => {
    const repo = `${uniqueName('loose')}/web`;
    await pushImageTag(host, repo, '1.0.0');
    await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'loose', spec(repo, { allowUnsigned: true })));
    await eventually(async () => expect(await summaries('loose')).toContain(`image ${host}/${repo} (chart default) → 1.0.0 (UNSIGNED: cosign: no signature)`), {
      timeoutMs: 60_000,
    });
  });

  it('notation: proposes a tag signed by a trusted certificate, naming its subject; an unsigned newer tag is not proposed', async () => {
    const repo = `${uniqueName('notation')}/web`;
    await pushImageTag(host, repo, '1.0.0');
    await notationSign(signer, await ociReference(`oci://${host}/${repo}`, '1.0.0'));
    const verify = { provider: 'notation' as const, secretRef: { name: 'image-trust' } };
    await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'notary', spec(repo, { verify })));
    await eventually(async () => expect(await summaries('notary')).toContain(`image ${host}/${repo} (chart default) → 1.0.0 (signed by ${signer.subject})`), {
      timeoutMs: 60_000,
    });
    await pushImageTag(host, repo, '1.1.0');
    await eventually(
      async () => expect(await readFile(logFile, 'utf8')).toContain(`image update: ${host}/${repo}:1.1.0 is not proposed: notation: no signature`),
      { timeoutMs: 30_000 },
    );
    expect((await summaries('notary')).filter((s) => s.includes('1.1.0'))).toEqual([]);
  });
});
