import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, it, type ExpectStatic } from 'vitest';
import type { ChartRef } from '../../src/api/helmrelease.js';
import { CheckLedger } from '../../src/controller/queue/check-ledger.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { pollUntil } from '../../src/dev/harness/index.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { chartFolder, publish, startTestChartServer, type TestChartServer } from '../support/chart-servers.js';
import { waitForCheckBegunNow } from '../support/checks.js';
import { eventually } from '../support/eventually.js';
import { namespaceWithController, testEnv, uniqueName } from '../support/fixtures.js';
import { pushUnicorn, registryPath } from '../support/oci.js';

const INTERVAL_SECONDS = 4;

/** Issue 19: a range picks up a newly published version within one interval, from an HTTP repository and from a registry. */
describe('a semver range follows new versions', () => {
  const { env, kubeConfig } = testEnv();
  const api = new HelmReleaseApi(makeKubeClients(kubeConfig));
  const { namespace, ctl } = namespaceWithController('semver');
  let repo: TestChartServer;

  beforeAll(async () => {
    repo = await startTestChartServer(await chartFolder(env, ['1.0.0']));
  });
  afterAll(async () => repo?.stop());

  const declare = (name: string, chart: ChartRef) =>
    applyHelmRelease(kubeConfig, helmReleaseObject(namespace, name, { chart, interval: `${INTERVAL_SECONDS}s`, timeout: '30s' }));

  /**
   * Checks of `name` that ended after `since` without attempting `version`, counted until one
   * attempts it. The ledger records a check when it ends; a check that attempts the version shows
   * in the status first (before helm runs), so it is never counted as a miss.
   */
  async function checksMissing(expect: ExpectStatic, name: string, version: string, since: number): Promise<number> {
    const key = `${namespace}/${name}`;
    const missed = new Set<number>();
    const redis = new Redis(env.redisUrl);
    const ledger = new CheckLedger(redis, ctl.prefix);
    try {
      await eventually(
        async () => {
          if ((await api.get(namespace, name))?.status?.lastAttemptedChartVersion === version) return;
          const at = (await ledger.all()).get(key);
          if (at !== undefined && at > since) missed.add(at);
          expect.fail(`${name} has not attempted ${version}; checks since: ${missed.size}`);
        },
        { timeoutMs: 60_000, intervalMs: 100 },
      );
    } finally {
      redis.disconnect();
    }
    return missed.size;
  }

  // The two sources side by side: different releases, each judged by its own checks.
  it.concurrent.for([
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
  ])('$source: 2.0.0 published is attempted within one interval and installed', async (row, { expect }) => {
    const setUp = 'setUp' in row ? row.setUp : undefined;
    await setUp?.();
    const name = `range-${row.source}`;
    const installed = await waitForReconciled(kubeConfig, namespace, name, await declare(name, row.chart()));
    expect(installed.status?.history?.[0]).toMatchObject({ chartVersion: '1.0.0' });

    // Past the install's own passes: from here only the periodic checks run, each begun at least
    // one interval after the previous one ended.
    const lastEnded = (await waitForCheckBegunNow(env.redisUrl, ctl.prefix, [`${namespace}/${name}`])).get(`${namespace}/${name}`)!;
    await row.publish();
    const published = Date.now();
    // Within one interval: a check begun after the publication attempts it. Only when publishing
    // took longer than an interval (a loaded machine) can one check have begun before it and
    // missed it. Counted in checks, not by the clock: under load checks come late, but none may
    // miss the new version.
    const mayMiss = published - lastEnded >= INTERVAL_SECONDS * 1000 ? 1 : 0;
    expect(await checksMissing(expect, name, '2.0.0', lastEnded)).toBeLessThanOrEqual(mayMiss);
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
