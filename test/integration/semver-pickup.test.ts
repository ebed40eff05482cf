import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChartRef } from '../../src/api/helmrelease.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { pollUntil } from '../../src/dev/harness/index.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { chartFolder, publish, startTestChartServer, type TestChartServer } from '../support/chart-servers.js';
import { namespaceWithController, testEnv, uniqueName } from '../support/fixtures.js';
import { pushUnicorn, registryPath } from '../support/oci.js';

const INTERVAL_SECONDS = 4;

/** Issue 19: a range picks up a newly published version within one interval, from an HTTP repository and from a registry. */
describe('a semver range follows new versions', () => {
  const { env, kubeConfig } = testEnv();
  const api = new HelmReleaseApi(makeKubeClients(kubeConfig));
  const { namespace } = namespaceWithController('semver');
  let repo: TestChartServer;

  beforeAll(async () => {
    repo = await startTestChartServer(await chartFolder(env, ['1.0.0']));
  });
  afterAll(async () => repo?.stop());

  const declare = (name: string, chart: ChartRef) =>
    applyHelmRelease(kubeConfig, helmReleaseObject(namespace, name, { chart, interval: `${INTERVAL_SECONDS}s`, timeout: '30s' }));

  /** ms from `since` until the release attempts `version`, polled every 100 ms. */
  async function msUntilAttempted(name: string, version: string, since: number, timeoutMs = 30_000): Promise<number> {
    while (Date.now() - since < timeoutMs) {
      const release = await api.get(namespace, name);
      if (release?.status?.lastAttemptedChartVersion === version) return Date.now() - since;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`${name} did not attempt ${version} within ${timeoutMs / 1000}s`);
  }

  it.each([
    {
      source: 'http',
      chart: () => ({ repository: repo.url, name: 'unicorn', version: '>=1.0.0 <4.0.0' }),
      publish: async () => publish(env, repo.dir, ['2.0.0']),
    },
    (() => {
      const url = registryPath(env.ociRegistry.url, uniqueName('semver'));
      return {
        source: 'oci',
        chart: () => ({ repository: url, name: 'unicorn', version: '>=1.0.0 <4.0.0', insecure: true }),
        setUp: () => pushUnicorn(env, url, '1.0.0'),
        publish: () => pushUnicorn(env, url, '2.0.0'),
      };
    })(),
  ])('$source: 2.0.0 published is attempted within one interval and installed', async (row) => {
    const setUp = 'setUp' in row ? row.setUp : undefined;
    await setUp?.();
    const name = `range-${row.source}`;
    const installed = await waitForReconciled(kubeConfig, namespace, name, await declare(name, row.chart()));
    expect(installed.status?.history?.[0]).toMatchObject({ chartVersion: '1.0.0' });

    const published = Date.now();
    await row.publish();
    const took = await msUntilAttempted(name, '2.0.0', published);
    // One interval, plus the resync tick (500 ms in tests) and a queue hop.
    expect(took).toBeLessThanOrEqual(INTERVAL_SECONDS * 1000 + 1_500);
    const upgraded = await pollUntil(
      async () => {
        const release = await api.get(namespace, name);
        return release?.status?.history?.[0]?.chartVersion === '2.0.0' ? release : undefined;
      },
      { timeoutMs: 60_000 },
      () => `${name} was not upgraded to 2.0.0`,
    );
    expect(upgraded.status?.history?.[0]).toMatchObject({ chartVersion: '2.0.0', status: 'deployed' });
    expect(upgraded.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True' });
  });
});
