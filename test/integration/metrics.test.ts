import { execa, type ResultPromise } from 'execa';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePorts } from '../../src/dev/free-port.js';
import { REPO_ROOT } from '../../src/dev/paths.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { deleteNamespace, freshNamespace, testEnv, uniqueName } from '../support/fixtures.js';
import { sample, scrape, type Scrape } from '../support/scrape.js';
import { eventually } from '../support/eventually.js';
import { CONTROLLER_RIGHTS_SETTINGS } from '../../src/dev/dev-settings.js';

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  return eventually(
    async () => {
      const value = await probe();
      if (value === undefined) throw new Error(`no ${what} yet`);
      return value;
    },
    { timeoutMs },
  );
}

/** Issue 20: a controller process serves /metrics, /readyz and /healthz on HEALTH_PORT. */
describe('controller metrics and health endpoints', () => {
  const { env, kubeConfig } = testEnv();
  let namespace: string;
  let port: number;
  let child: ResultPromise;

  beforeAll(async () => {
    namespace = await freshNamespace(kubeConfig, 'metrics');
    const dir = await mkdtemp(join(tmpdir(), 'helmcrew-metrics-'));
    port = (await freePorts(1))[0] ?? 0;
    child = execa(process.execPath, [join(REPO_ROOT, 'bin/helmcrew.js'), 'controller'], {
      env: {
        KUBECONFIG: env.kubeconfig,
        REDIS_URL: env.redisUrl,
        HELM_BIN: env.helmBin,
        WATCH_NAMESPACES: namespace,
        ...CONTROLLER_RIGHTS_SETTINGS,
        HELMCREW_QUEUE_PREFIX: uniqueName('hc-metrics'),
        HELMCREW_WORK_DIR: join(dir, 'work'),
        HEALTH_PORT: String(port),
        LOG_LEVEL: 'info',
      },
      stdout: 'ignore',
      stderr: { file: join(dir, 'controller.log') },
      reject: false,
    });
  });
  afterAll(async () => {
    child.kill('SIGTERM');
    await child;
    await deleteNamespace(kubeConfig, namespace);
  });

  const declare = (version: string) =>
    applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'gauged', { chart: { repository: env.chartRepoUrl, name: 'unicorn', version } }));

  it('is live at once and ready once the informers synced and Redis answers', async () => {
    await until('/readyz 200', async () => ((await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200 ? true : undefined));
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(await ready.text()).toBe('ok');
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${port}/nothing`)).status).toBe(404);
  });

  it('exposes its metrics in the Prometheus text format, with no release yet', async () => {
    const families = await scrape(port);
    const type = (name: string) => families.types.get(name);
    expect(type('helmcrew_reconcile_duration_seconds')).toBe('histogram');
    expect(type('helmcrew_helm_duration_seconds')).toBe('histogram');
    expect(type('helmcrew_helm_processes_total')).toBe('counter');
    expect(type('helmcrew_informer_restarts_total')).toBe('counter');
    expect(type('helmcrew_watch_reconnects_total')).toBe('counter');
    expect(type('helmcrew_releases')).toBe('gauge');
    expect(type('helmcrew_queue_jobs')).toBe('gauge');
    expect(type('helmcrew_queue_oldest_waiting_job_age_seconds')).toBe('gauge');
    expect(type('process_cpu_seconds_total')).toBe('counter');
    expect(sample(families, 'helmcrew_releases')).toBe(0);
    expect(sample(families, 'helmcrew_informer_restarts_total', { cause: 'error' })).toBe(0);
    expect(sample(families, 'helmcrew_queue_jobs', { queue: 'reconcile', state: 'waiting' })).toBe(0);
    expect(sample(families, 'helmcrew_queue_oldest_waiting_job_age_seconds', { queue: 'reconcile' })).toBe(0);
    expect(sample(families, 'helmcrew_helm_processes_total')).toBe(0);
  });

  it('moves as a release is installed and upgraded', async () => {
    let generation = await declare('1.0.0');
    await waitForReconciled(kubeConfig, namespace, 'gauged', generation);
    // The status write that made it Ready reaches the informer a moment later.
    // So does the pass's own duration, observed as the pass ends (after that write): a busy machine can scrape between them.
    let families: Scrape = await until('a Ready release in the gauge and its pass observed', async () => {
      const scraped = await scrape(port);
      const observed = sample(scraped, 'helmcrew_reconcile_duration_seconds_count', { action: 'install', result: 'success' }) >= 1;
      return sample(scraped, 'helmcrew_releases', { ready: 'true' }) === 1 && observed ? scraped : undefined;
    });
    expect(sample(families, 'helmcrew_releases', { ready: 'false' })).toBe(0);
    expect(sample(families, 'helmcrew_helm_processes_total', { verb: 'install', result: 'success' })).toBe(1);
    expect(sample(families, 'helmcrew_helm_duration_seconds_count', { verb: 'install', result: 'success' })).toBe(1);
    expect(sample(families, 'helmcrew_reconcile_duration_seconds_count', { action: 'install', result: 'success' })).toBe(1);
    expect(sample(families, 'helmcrew_helm_duration_seconds_sum', { verb: 'install', result: 'success' })).toBeGreaterThan(0);
    // The +Inf bucket holds every observation; a 10 ms bucket none of a real helm install.
    expect(sample(families, 'helmcrew_helm_duration_seconds_bucket', { verb: 'install', result: 'success', le: '+Inf' })).toBe(1);

    generation = await declare('2.0.0');
    await waitForReconciled(kubeConfig, namespace, 'gauged', generation);
    families = await until('the upgrade counted', async () => {
      const scraped = await scrape(port);
      const observed = sample(scraped, 'helmcrew_reconcile_duration_seconds_count', { action: 'upgrade', result: 'success' }) >= 1;
      return sample(scraped, 'helmcrew_helm_processes_total', { verb: 'upgrade', result: 'success' }) === 1 && observed ? scraped : undefined;
    });
    expect(sample(families, 'helmcrew_reconcile_duration_seconds_count', { action: 'upgrade', result: 'success' })).toBe(1);
    expect(sample(families, 'helmcrew_helm_processes_total', { verb: 'install' })).toBe(1);
    // No per-release labels anywhere: the release's name appears in no series.
    for (const series of families.series.values()) for (const s of series) expect(Object.values(s.labels)).not.toContain('gauged');
  });

  it('a chart version that does not exist turns the release to not Ready in the gauge', async () => {
    await declare('9.9.9');
    // The status (hence the gauge) is written before the failed pass ends and is counted: wait for both.
    const families = await eventually(async () => {
      const scraped = await scrape(port);
      expect(sample(scraped, 'helmcrew_releases', { ready: 'false' })).toBe(1);
      expect(sample(scraped, 'helmcrew_reconcile_duration_seconds_count', { action: 'retry-later', result: 'error' })).toBeGreaterThan(0);
      return scraped;
    });
    expect(sample(families, 'helmcrew_releases', { ready: 'true' })).toBe(0);
  });
});
