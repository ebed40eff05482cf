import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { deleteNamespace, freshNamespace, startTestController, testEnv, type TestController } from '../support/fixtures.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

/**
 * The controller talks to the API server through a proxy this test can break. A change made
 * while its watch is down, or silently stalled, must still be reconciled.
 */
describe('watch faults', () => {
  const { env, kubeConfig } = testEnv();
  const storage = new ReleaseStorage(makeKubeClients(kubeConfig));
  let namespace: string;
  let proxy: TcpProxy;
  let ctl: TestController;

  beforeAll(async () => {
    namespace = await freshNamespace(kubeConfig, 'fault');
    const server = new URL(kubeConfig.getCurrentCluster()!.server);
    proxy = await startTcpProxy(Number(server.port));
    const dir = await mkdtemp(join(tmpdir(), 'helmcrew-fault-'));
    const proxied = join(dir, 'kubeconfig');
    await writeFile(proxied, (await readFile(env.kubeconfig, 'utf8')).replaceAll(server.host, `127.0.0.1:${proxy.port}`));
    ctl = await startTestController([namespace], { KUBECONFIG: proxied, HELMCREW_WATCH_SILENCE_MS: '3000' });
  });
  afterAll(async () => {
    await ctl?.stop();
    await proxy?.close();
    await deleteNamespace(kubeConfig, namespace);
  });

  const declare = (version: string) =>
    applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'sturdy', { chart: { repository: env.chartRepoUrl, name: 'unicorn', version } }));

  it('a change made while the API server is unreachable is reconciled once it is back', async () => {
    await waitForReconciled(kubeConfig, namespace, 'sturdy', await declare('1.0.0'));
    await proxy.cut();
    const generation = await declare('2.0.0'); // written directly, not through the proxy
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(ctl.controller.ready()).toBe(true);
    await proxy.restore();
    await waitForReconciled(kubeConfig, namespace, 'sturdy', generation, 60_000);
    expect((await storage.history(namespace, 'sturdy')).deployed?.chartVersion).toBe('2.0.0');
  });

  it('a change made while the watch is silently stalled is reconciled after the watchdog relists', async () => {
    proxy.stall();
    const generation = await declare('3.0.0');
    await waitForReconciled(kubeConfig, namespace, 'sturdy', generation, 60_000);
    expect((await storage.history(namespace, 'sturdy')).deployed?.chartVersion).toBe('3.0.0');
  });
});
