import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { pino } from 'pino';
import type { ChartRef } from '../../src/api/helmrelease.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { applyHelmRelease, helmReleaseObject } from '../../src/dev/releases.js';
import { ociReference } from './cosign.js';
import { namespaceWithController, testEnv, uniqueName } from './fixtures.js';
import { pushUnicorn, registryPath } from './oci.js';

/**
 * What the signed-chart tests (cosign, notation) share: a namespace with a controller whose log is
 * kept in a file (to count the verifying tool's runs), unicorn pushed to a repository of the test's
 * own, and HelmReleases that verify it with `provider` and the keys in Secret `secretName`.
 */
export function signedChartsFixture(provider: 'cosign' | 'notation', secretName: string) {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const logFile = join(tmpdir(), `${uniqueName(`helmcrew-${provider}-log`)}.jsonl`);
  const log = pino({ level: 'info', base: { component: 'controller' } }, pino.destination({ dest: logFile, sync: true }));
  const { namespace, ctl } = namespaceWithController(provider === 'cosign' ? 'verify' : provider, {}, log);

  /** How many times the controller ran the provider's tool so far (its log lines). */
  const toolRuns = async () => (await readFile(logFile, 'utf8')).split('\n').filter((l) => l.includes(`"action":"${provider} verify"`)).length;
  const secret = (name: string, data: Record<string, string>) => core.createNamespacedSecret({ namespace, body: { metadata: { name }, stringData: data } });
  const chart = (repository: string, over: Partial<ChartRef> = {}): ChartRef => ({
    repository,
    name: 'unicorn',
    version: '1.0.0',
    insecure: true,
    verify: { provider, secretRef: { name: secretName } },
    ...over,
  });
  const declare = (name: string, c: ChartRef, interval = '10m') =>
    applyHelmRelease(kubeConfig, helmReleaseObject(namespace, name, { chart: c, interval, timeout: '30s' }));
  /** A repository of the test's own with unicorn 1.0.0 pushed; its reference (host/path@digest). */
  const pushed = async (label: string) => {
    const url = registryPath(env.ociRegistry.url, uniqueName(label));
    await pushUnicorn(env, url, '1.0.0');
    return { url, ref: await ociReference(`${url}/unicorn`, '1.0.0') };
  };
  const eventsOf = async (name: string, reason: string) =>
    (await core.listNamespacedEvent({ namespace, fieldSelector: `involvedObject.name=${name}` })).items.filter((e) => e.reason === reason);

  return {
    env,
    kubeConfig,
    core,
    api: new HelmReleaseApi(kube),
    storage: new ReleaseStorage(kube),
    namespace,
    ctl,
    toolRuns,
    secret,
    chart,
    declare,
    pushed,
    eventsOf,
  };
}
