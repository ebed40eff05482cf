import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChartRef } from '../../src/api/helmrelease.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { eventReasons } from '../../src/dev/harness/events.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { startTestChartServer, type TestChartServer } from '../support/chart-servers.js';
import { waitForReadyCondition } from '../support/eventually.js';
import { waitForChecks } from '../support/checks.js';
import { namespaceWithController, testEnv } from '../support/fixtures.js';
import { makePgpKey, stopPgpAgent, type TestPgpKey } from '../support/signing-keys.js';

/** spec.chart.verify provider pgp: helm provenance (.prov made by helm package --sign) checked before anything is installed. */
describe('helm provenance of http(s) repository charts', () => {
  const { env, kubeConfig } = testEnv();
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const storage = new ReleaseStorage(makeKubeClients(kubeConfig));
  const api = new HelmReleaseApi(makeKubeClients(kubeConfig));
  const { namespace, ctl } = namespaceWithController('prov');
  let server: TestChartServer;
  let signer: TestPgpKey;
  let other: TestPgpKey;
  let repoDir = '';

  const chart = (version: string, over: Partial<ChartRef> = {}): ChartRef => ({
    repository: server.url,
    name: 'unicorn',
    version,
    verify: { provider: 'pgp', secretRef: { name: 'chart-keys' } },
    ...over,
  });
  const declare = (name: string, c: ChartRef, interval = '10m') =>
    applyHelmRelease(kubeConfig, helmReleaseObject(namespace, name, { chart: c, interval, timeout: '30s' }));
  const secret = (name: string, data: Record<string, Buffer | string>) =>
    core.createNamespacedSecret({
      namespace,
      body: { metadata: { name }, data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])) },
    });
  const revisions = async (name: string) => (await storage.history(namespace, name)).releases.length;
  const failure = (name: string, artifact: string, why: string) =>
    `HelmRelease ${namespace}/${name}: chart unicorn@${artifact} failed verification: ${why}; nothing of it is rendered or installed`;

  /** Packages unicorn 1.0.0's source as `version`, signed by `key` (helm package --sign), or not. */
  const packageAs = async (version: string, key: TestPgpKey | undefined, color?: string) => {
    const work = await mkdtemp(join(tmpdir(), 'hc-prov-src-'));
    await execa('tar', ['xzf', join(env.stateDir, 'charts', 'unicorn-1.0.0.tgz'), '-C', work]);
    if (color) {
      const values = join(work, 'unicorn', 'values.yaml');
      await writeFile(values, (await readFile(values, 'utf8')).replace(/^color: .*$/m, `color: ${color}`));
    }
    const sign = key ? ['--sign', '--key', key.uid, '--keyring', key.secretKeyringFile] : [];
    await execa(env.helmBin, ['package', join(work, 'unicorn'), '--version', version, '--destination', repoDir, ...sign], {
      env: { GNUPGHOME: key?.home ?? work },
    });
    await rm(work, { recursive: true, force: true });
  };

  beforeAll(async () => {
    [signer, other] = await Promise.all([makePgpKey('Chart Signer <signer@helmcrew.invalid>'), makePgpKey('Someone Else <else@helmcrew.invalid>')]);
    repoDir = await mkdtemp(join(tmpdir(), 'hc-prov-repo-'));
    await packageAs('1.0.0', signer);
    await packageAs('1.0.4', signer);
    // Tampered: signed, then the archive replaced by another build of the same version (the .prov stays).
    await packageAs('1.0.1', signer);
    const tampered = await mkdtemp(join(tmpdir(), 'hc-prov-t-'));
    await cp(join(repoDir, 'unicorn-1.0.1.tgz.prov'), join(tampered, 'keep.prov'));
    await packageAs('1.0.1', undefined, 'black');
    await cp(join(tampered, 'keep.prov'), join(repoDir, 'unicorn-1.0.1.tgz.prov'));
    await packageAs('1.0.2', undefined);
    await packageAs('1.0.3', other);
    await execa(env.helmBin, ['repo', 'index', repoDir]);
    server = await startTestChartServer(repoDir);
    await secret('chart-keys', { 'pubring.gpg': signer.publicKeyring });
    await secret('chart-keys-armored', { 'pubring.gpg': signer.armored });
    await secret('chart-keys-empty', { other: 'x' });
  });
  afterAll(async () => {
    await server?.stop();
    await Promise.all([signer, other].filter(Boolean).map(stopPgpAgent));
  });

  it('a chart signed by a trusted key installs; status says who signed it', async () => {
    const done = await waitForReconciled(kubeConfig, namespace, 'signed', await declare('signed', chart('1.0.0')));
    expect((await storage.history(namespace, 'signed')).deployed).toMatchObject({ chartVersion: '1.0.0', status: 'deployed' });
    const fresh = await api.get(namespace, 'signed');
    expect(fresh?.status?.verification).toMatchObject({ artifact: 'unicorn@1.0.0', provider: 'pgp' });
    expect(fresh?.status?.verification?.verifiedBy).toMatch(/^Chart Signer <signer@helmcrew\.invalid> \(key [0-9A-F]{16}\)$/);
    expect(done.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
  });

  it('armored public keys under pubring.gpg work as well', async () => {
    await waitForReconciled(
      kubeConfig,
      namespace,
      'armored',
      await declare('armored', chart('1.0.0', { verify: { provider: 'pgp', secretRef: { name: 'chart-keys-armored' } } })),
    );
    expect(await revisions('armored')).toBe(1);
  });

  it.each([
    { name: 'tampered', version: '1.0.1', why: "the .prov does not match the chart's digest: the archive is not the one that was signed" },
    { name: 'no-prov', version: '1.0.2', why: 'the repository has no .prov (provenance file) beside the chart' },
    {
      name: 'other-key',
      version: '1.0.3',
      why: 'it is signed by a key that is not among the keys of Secret NS/chart-keys (spec.chart.verify.secretRef)',
    },
  ])('$name: VerificationFailed naming the release, the chart and the check; nothing installed', async ({ name, version, why }) => {
    await declare(name, chart(version));
    const ready = await waitForReadyCondition(kubeConfig, namespace, name, 'VerificationFailed');
    expect(ready.status).toBe('False');
    expect(ready.message).toBe(failure(name, version, why.replace('NS', namespace)));
    expect(await revisions(name)).toBe(0);
  });

  it('a missing key Secret, or one without pubring.gpg: VerificationFailed saying so', async () => {
    await declare('no-secret', chart('1.0.0', { verify: { provider: 'pgp', secretRef: { name: 'nope' } } }));
    expect((await waitForReadyCondition(kubeConfig, namespace, 'no-secret', 'VerificationFailed')).message).toContain(
      `Secret ${namespace}/nope (spec.chart.verify.secretRef) not found`,
    );
    await declare('empty-secret', chart('1.0.0', { verify: { provider: 'pgp', secretRef: { name: 'chart-keys-empty' } } }));
    expect((await waitForReadyCondition(kubeConfig, namespace, 'empty-secret', 'VerificationFailed')).message).toContain(
      `Secret ${namespace}/chart-keys-empty has no pubring.gpg`,
    );
    expect(await revisions('no-secret')).toBe(0);
  });

  it('without verify, the same tampered chart installs: the check is what refuses it', async () => {
    await waitForReconciled(kubeConfig, namespace, 'unchecked', await declare('unchecked', chart('1.0.1', { verify: undefined })));
    expect((await storage.history(namespace, 'unchecked')).deployed).toMatchObject({ chartVersion: '1.0.1', status: 'deployed' });
  });

  it('an upgrade to a tampered chart keeps the running revision, is told once, and the next good version proceeds', async () => {
    await waitForReconciled(kubeConfig, namespace, 'moving', await declare('moving', chart('1.0.0'), '1s'));
    await declare('moving', chart('1.0.1'), '1s');
    await waitForReadyCondition(kubeConfig, namespace, 'moving', 'VerificationFailed');
    // Several 1 s checks later (counted in the controller's check ledger): still one Event (one notification), still revision 1.
    const checks = await waitForChecks(env.redisUrl, ctl.prefix, [`${namespace}/moving`], 4, 30_000);
    expect(checks.get(`${namespace}/moving`)!.size).toBeGreaterThanOrEqual(4);
    expect((await eventReasons(kubeConfig, namespace, 'moving')).filter((r) => r === 'Warning VerificationFailed')).toHaveLength(1);
    expect(await revisions('moving')).toBe(1);
    expect((await storage.history(namespace, 'moving')).deployed).toMatchObject({ chartVersion: '1.0.0' });
    const generation = await declare('moving', chart('1.0.4'), '1s');
    await waitForReconciled(kubeConfig, namespace, 'moving', generation);
    expect((await storage.history(namespace, 'moving')).deployed).toMatchObject({ chartVersion: '1.0.4', revision: 2 });
    expect((await api.get(namespace, 'moving'))?.status?.verification?.artifact).toBe('unicorn@1.0.4');
  });
});
