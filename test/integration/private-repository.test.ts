import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChartRef } from '../../src/api/helmrelease.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { certPaths } from '../../src/dev/certs.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { chartFolder, startTestChartServer, type TestChartServer } from '../support/chart-servers.js';
import { eventually, waitForReadyCondition } from '../support/eventually.js';
import { namespaceWithController, testEnv } from '../support/fixtures.js';
import { memoryLogger } from '../support/notify-fixtures.js';

/** Issue 19: http(s) repositories behind basic auth and behind TLS with a private CA (and a client certificate). */
describe('private chart repositories', () => {
  const { env, kubeConfig } = testEnv();
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const storage = new ReleaseStorage(makeKubeClients(kubeConfig));
  const logged = memoryLogger('controller');
  const { namespace, ctl } = namespaceWithController('private', {}, logged.log);
  const login = { username: 'charts', password: 'Sesame-Open-4-Charts' };
  const basicHeader = `Basic ${Buffer.from(`${login.username}:${login.password}`).toString('base64')}`;
  let basic: TestChartServer;
  let tls: TestChartServer;
  let ca = '';

  const chart = (repository: string, over: Partial<ChartRef> = {}): ChartRef => ({ repository, name: 'unicorn', version: '1.0.0', ...over });
  const declare = (name: string, c: ChartRef, interval = '10m') =>
    applyHelmRelease(kubeConfig, helmReleaseObject(namespace, name, { chart: c, interval, timeout: '30s' }));
  const secret = (name: string, stringData: Record<string, string>) => core.createNamespacedSecret({ namespace, body: { metadata: { name }, stringData } });

  beforeAll(async () => {
    const dir = await chartFolder(env, ['1.0.0', '2.0.0']);
    basic = await startTestChartServer(dir, { basicAuth: login });
    // The local cluster's CA signed the API server's certificate (SAN 127.0.0.1) and an admin client certificate: a private PKI.
    const certs = certPaths(join(env.stateDir, 'certs'));
    const [caPem, cert, key, clientCert, clientKey] = await Promise.all(
      [certs.caCert, certs.serverCert, certs.serverKey, certs.adminCert, certs.adminKey].map((f) => readFile(f)),
    );
    ca = caPem!.toString('utf8');
    tls = await startTestChartServer(dir, { tls: { cert: cert!, key: key!, clientCa: caPem! } });
    await secret('charts-login', login);
    await secret('charts-wrong', { ...login, password: 'not-the-password' });
    await secret('charts-tls', { 'ca.crt': ca, 'tls.crt': clientCert!.toString('utf8'), 'tls.key': clientKey!.toString('utf8') });
    await secret('charts-ca-only', { 'ca.crt': ca });
  });
  afterAll(async () => {
    await basic?.stop();
    await tls?.stop();
  });

  it('installs from a repository behind basic auth; the chart archive is fetched without helm pull', async () => {
    await waitForReconciled(kubeConfig, namespace, 'basic', await declare('basic', chart(basic.url, { secretRef: { name: 'charts-login' } })));
    expect((await storage.history(namespace, 'basic')).deployed).toMatchObject({ chartVersion: '1.0.0', status: 'deployed' });
    expect(basic.indexRequests.length).toBeGreaterThan(0);
    expect(basic.indexRequests.every((r) => r.authorization === basicHeader)).toBe(true);
    const invocations = await ctl.helm.invocations();
    expect(invocations.filter((args) => args.join(' ').includes(basic.url))).toEqual([]);
    for (const args of invocations) expect(args.join(' ')).not.toContain(login.password);
  });

  it('a wrong password: Ready=False ChartPullFailed naming the repository and the Secret', async () => {
    await declare('wrong', chart(basic.url, { secretRef: { name: 'charts-wrong' } }));
    const ready = await waitForReadyCondition(kubeConfig, namespace, 'wrong', 'ChartPullFailed');
    expect(ready.message).toBe(`${basic.url} refused the credentials in Secret ${namespace}/charts-wrong (spec.chart.secretRef)`);
  });

  it('a password fixed in the Secret is tried at once (the Secret is watched), not at the next retry or interval', async () => {
    await secret('charts-fixable', { ...login, password: 'not-yet' });
    await declare('fixable', chart(basic.url, { secretRef: { name: 'charts-fixable' } }));
    await waitForReadyCondition(kubeConfig, namespace, 'fixable', 'ChartPullFailed');
    // Let the retries back off (1, 2, 4, 8 s …): once the fourth attempt has failed, the next one
    // is 8 s away (retryDelayMs), far more than the watch takes to start a pass.
    await eventually(
      () => {
        const failed = logged.lines
          .map((line) => JSON.parse(line) as { msg?: string; release?: string; attempt?: number })
          .filter((p) => p.msg === 'reconcile failed; will retry while attempts remain' && p.release === `${namespace}/fixable`);
        expect(Math.max(0, ...failed.map((p) => p.attempt ?? 0))).toBeGreaterThanOrEqual(4);
      },
      { timeoutMs: 60_000, intervalMs: 100 },
    );
    await core.replaceNamespacedSecret({ namespace, name: 'charts-fixable', body: { metadata: { name: 'charts-fixable' }, stringData: login } });
    await waitForReconciled(kubeConfig, namespace, 'fixable', 1, 30_000);
    // Tried because the Secret changed (the watch), not at a retry: the installing pass ran for that
    // reason. (Read from the log, not the clock: under load helm alone can take seconds.)
    // The worker logs a pass after it returns, a moment after the status it wrote: wait for the line.
    await eventually(() => {
      const passes = logged.lines.map((line) => JSON.parse(line) as { msg?: string; release?: string; reason?: string; action?: string });
      const install = passes.find((p) => p.msg === 'reconciled' && p.release === `${namespace}/fixable` && p.action === 'install');
      expect(install?.reason).toMatch(/^Secret charts-fixable (update|add)/);
    });
  });

  it('without credentials: the one generic message, no status code', async () => {
    await declare('anonymous', chart(basic.url));
    const ready = await waitForReadyCondition(kubeConfig, namespace, 'anonymous', 'ChartPullFailed');
    expect(ready.message).toBe(`could not fetch the repository index of ${basic.url}`);
  });

  it('installs over TLS with a private CA and a client certificate', async () => {
    await waitForReconciled(kubeConfig, namespace, 'tls', await declare('tls', chart(tls.url, { version: '2.0.0', certSecretRef: { name: 'charts-tls' } })));
    expect((await storage.history(namespace, 'tls')).deployed).toMatchObject({ chartVersion: '2.0.0', status: 'deployed' });
  });

  it('TLS without the CA, or without the client certificate the server asks for, is refused', async () => {
    await declare('no-ca', chart(tls.url));
    expect((await waitForReadyCondition(kubeConfig, namespace, 'no-ca', 'ChartPullFailed')).message).toBe(`could not fetch the repository index of ${tls.url}`);
    await declare('ca-only', chart(tls.url, { certSecretRef: { name: 'charts-ca-only' } }));
    expect((await waitForReadyCondition(kubeConfig, namespace, 'ca-only', 'ChartPullFailed')).message).toBe(
      `could not fetch the repository index of ${tls.url}`,
    );
  });

  it('one index download per repository, shared by releases using the same Secret; later checks revalidate with ETag (304)', async () => {
    const before = basic.indexRequests.length;
    const started = Date.now();
    await Promise.all(
      ['shared-a', 'shared-b', 'shared-c'].map((name) => declare(name, chart(basic.url, { version: '1.x', secretRef: { name: 'charts-login' } }), '2s')),
    );
    for (const name of ['shared-a', 'shared-b', 'shared-c']) await waitForReconciled(kubeConfig, namespace, name, 1);
    // Requests are counted over this span (not a synchronisation: the bound below scales with it).
    await new Promise((r) => setTimeout(r, 8_000));
    // Only this Secret's requests: the releases with a wrong or no password retry meanwhile.
    const seen = basic.indexRequests.slice(before).filter((r) => r.authorization === basicHeader);
    const seconds = (Date.now() - started) / 1000;
    // Three releases checking every 2 s share one answer per interval: about seconds / 2 requests, not three times that.
    expect(seen.length).toBeLessThanOrEqual(Math.ceil(seconds / 2) + 2);
    expect(seen.length).toBeGreaterThanOrEqual(3);
    // The index did not change: after the first download every request is conditional (answered 304).
    expect(seen.filter((r) => !r.conditional).length).toBeLessThanOrEqual(1);
  });
});
