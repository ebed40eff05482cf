import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChartRef } from '../../src/api/helmrelease.js';
import { ConditionType } from '../../src/api/vocabulary.js';
import { certPaths } from '../../src/dev/certs.js';
import { startGitHttpServer, type GitHttpServer } from '../../src/dev/git-server.js';
import { createChartGitRepo } from '../../src/dev/git-repos.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { pollUntil } from '../../src/dev/harness/poll.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { chartFolder, startTestChartServer, type TestChartServer } from '../support/chart-servers.js';
import { namespaceWithController, testEnv, uniqueName } from '../support/fixtures.js';
import { pushUnicorn, registryPath } from '../support/oci.js';
import { startTinyproxy, type TestProxy } from '../support/tinyproxy.js';

/**
 * Flux's proxySecretRef on the real parts: Debian's tinyproxy (basic auth, its own log) on a free
 * loopback port between the controller and an http(s) chart repository or the local OCI registry.
 * The proxy's log proves the index, the archive, the tags and the chart layer went through it,
 * asked for the address the host policy checked; a wrong password is named, never shown.
 */
describe('chart sources through a proxy (proxySecretRef)', () => {
  const { env, kubeConfig } = testEnv();
  const { namespace } = namespaceWithController('proxy');
  const core = kubeConfig.makeApiClient(CoreV1Api);
  let proxy: TestProxy;
  let charts: TestChartServer;
  let tls: TestChartServer;
  let git: GitHttpServer;

  beforeAll(async () => {
    proxy = await startTinyproxy();
    const dir = await chartFolder(env, ['1.0.0']);
    charts = await startTestChartServer(dir);
    // https with the local cluster's private PKI (server SAN 127.0.0.1, a client certificate asked for).
    const certs = certPaths(join(env.stateDir, 'certs'));
    const [ca, cert, key, clientCert, clientKey] = await Promise.all(
      [certs.caCert, certs.serverCert, certs.serverKey, certs.adminCert, certs.adminKey].map((f) => readFile(f)),
    );
    tls = await startTestChartServer(dir, { tls: { cert: cert!, key: key!, clientCa: ca! } });
    const gitRoot = await mkdtemp(join(tmpdir(), 'helmcrew-git-proxy-'));
    await createChartGitRepo(gitRoot, 'charts', '1.0.0', 'pink');
    git = await startGitHttpServer(gitRoot);
    const secret = (name: string, stringData: Record<string, string>) => core.createNamespacedSecret({ namespace, body: { metadata: { name }, stringData } });
    await secret('proxy', { address: proxy.address, username: proxy.username, password: proxy.password });
    await secret('proxy-wrong', { address: proxy.address, username: proxy.username, password: 'not-the-password' });
    await secret('charts-tls', { 'ca.crt': ca!.toString('utf8'), 'tls.crt': clientCert!.toString('utf8'), 'tls.key': clientKey!.toString('utf8') });
  });
  afterAll(async () => {
    await charts?.stop();
    await tls?.stop();
    await git?.stop();
    await proxy?.stop();
  });

  const install = async (name: string, chart: ChartRef) => {
    await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, name, { chart, timeout: '60s', interval: '1m' }));
    return waitForReconciled(kubeConfig, namespace, name, 1);
  };

  it('an http repository: the index and the archive go through the proxy', async () => {
    const done = await install('web', { repository: charts.url, name: 'unicorn', version: '1.0.0', proxySecretRef: { name: 'proxy' } });
    expect(done.status?.conditions?.find((c) => c.type === ConditionType.Ready)?.status).toBe('True');
    const log = await proxy.log();
    expect(log).toContain(`GET ${charts.url}/index.yaml`);
    expect(log).toContain(`GET ${charts.url}/unicorn-1.0.0.tgz`);
  });

  it('an https repository with a private CA and a client certificate: tunnelled with CONNECT to the checked address', async () => {
    const chart: ChartRef = {
      repository: tls.url,
      name: 'unicorn',
      version: '1.0.0',
      certSecretRef: { name: 'charts-tls' },
      proxySecretRef: { name: 'proxy' },
    };
    const done = await install('tls', chart);
    expect(done.status?.conditions?.find((c) => c.type === ConditionType.Ready)?.status).toBe('True');
    expect(await proxy.log()).toContain(`CONNECT ${new URL(tls.url).host}`);
  });

  it('an oci:// registry: tags, the manifest and the chart layer go through the proxy', async () => {
    const url = registryPath(env.ociRegistry.url, uniqueName('proxied'));
    await pushUnicorn(env, url, '1.0.0');
    const done = await install('oci', { repository: url, name: 'unicorn', version: '1.x', insecure: true, proxySecretRef: { name: 'proxy' } });
    expect(done.status?.conditions?.find((c) => c.type === ConditionType.Ready)?.status).toBe('True');
    const path = new URL(url.replace(/^oci:/, 'http:'));
    const log = await proxy.log();
    expect(log).toContain(`GET http://${path.host}/v2${path.pathname}/unicorn/tags/list`);
    expect(log).toMatch(new RegExp(`GET http://${path.host}/v2${path.pathname}/unicorn/blobs/sha256:[0-9a-f]{64}`));
  });

  it("a Git repository: git's ls-remote and fetch go through the proxy (http.proxy)", async () => {
    const url = `${git.url}/charts.git`;
    const done = await install('git', { name: 'unicorn', git: { url, ref: { branch: 'main' }, path: 'charts/unicorn', proxySecretRef: { name: 'proxy' } } });
    expect(done.status?.conditions?.find((c) => c.type === ConditionType.Ready)?.status).toBe('True');
    const log = await proxy.log();
    expect(log).toContain(`GET ${url}/info/refs?service=git-upload-pack`);
    expect(log).toContain(`POST ${url}/git-upload-pack`);
  });

  it('a wrong proxy password: Ready=False naming the proxy and the Secret, the password nowhere', async () => {
    await applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, 'refused', {
        // https: the proxy answers CONNECT itself (over plain http a 401 could be the repository's).
        chart: { repository: tls.url, name: 'unicorn', version: '1.0.0', certSecretRef: { name: 'charts-tls' }, proxySecretRef: { name: 'proxy-wrong' } },
        timeout: '60s',
      }),
    );
    const ready = await pollUntil(
      async () => {
        const release = await new HelmReleaseApi(makeKubeClients(kubeConfig)).get(namespace, 'refused');
        const condition = release?.status?.conditions?.find((c) => c.type === ConditionType.Ready);
        return condition?.status === 'False' && condition.message.includes('proxy') ? { release, condition } : undefined;
      },
      { timeoutMs: 60_000 },
      () => `${namespace}/refused: no Ready=False naming the proxy`,
    );
    // tinyproxy 1.11 answers 401 where RFC 9110 says 407.
    expect(ready.condition.message).toContain(`the proxy ${new URL(proxy.address).host} refused the credentials in Secret ${namespace}/proxy-wrong (401)`);
    expect(JSON.stringify(ready.release)).not.toContain('not-the-password');
  });
});
