import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { connectRedis } from '../../src/core/redis.js';
import { freePorts } from '../../src/dev/free-port.js';
import { sample, scrape } from '../support/scrape.js';
import { REPO_ROOT } from '../../src/dev/paths.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { createLogger } from '../../src/core/log.js';
import type { ReleaseNotification } from '../../src/notify/contract.js';
import { NotifyPublisher } from '../../src/notify/publish/publisher.js';
import { deleteNamespace, freshNamespace, testEnv, uniqueName } from '../support/fixtures.js';
import { createHelmShim } from '../support/helm-shim.js';
import { createSigningSecret, createTeam, deleteTeams, notificationFor, randomKey, TEST_LABEL } from '../support/notify-fixtures.js';
import { spawnNotify } from '../support/notify-process.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { CONTROLLER_RIGHTS_SETTINGS } from '../../src/dev/dev-settings.js';

/**
 * Issue 6: `helmcrew run` (controller + notify in one process) beside a second `helmcrew notify`
 * replica, sharing one queue: a release installed is told once; a stream of notifications over
 * several releases is delivered once each, in order per release, whichever replica takes it.
 */
describe('helmcrew run and a notify replica sharing the queue', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const run = uniqueName('hc-replicas');
  const key = randomKey('replicas');
  const receiver = new WebhookReceiver({ '/hook': key }, () => ({ status: 200, delayMs: 50 }));
  const redis = connectRedis(env.redisUrl);
  const publisher = new NotifyPublisher({ connection: redis, prefix: run, log: createLogger('test', 'warn') });
  const children: ResultPromise[] = [];
  let namespace: string;
  let dir: string;
  let healthPort: number;

  beforeAll(async () => {
    await receiver.start();
    namespace = await freshNamespace(kubeConfig, 'replicas');
    dir = await mkdtemp(join(tmpdir(), 'helmcrew-replicas-'));
    await createSigningSecret(kube, namespace, 'hook', key);
    await createTeam(kube, run, `${run}-team`, {
      subscriptions: [{ namespaces: [namespace] }],
      channels: [{ webhook: { url: receiver.url('/hook'), secretRef: { namespace, name: 'hook' } } }],
    });
    const helm = await createHelmShim(dir, env.helmBin);
    healthPort = (await freePorts(1))[0] ?? 0;
    children.push(
      execa(process.execPath, [join(REPO_ROOT, 'bin/helmcrew.js'), 'run'], {
        env: {
          KUBECONFIG: env.kubeconfig,
          REDIS_URL: env.redisUrl,
          HELM_BIN: helm.bin,
          WATCH_NAMESPACES: namespace,
          ...CONTROLLER_RIGHTS_SETTINGS,
          HELMCREW_QUEUE_PREFIX: run,
          HELMCREW_WORK_DIR: join(dir, 'work'),
          HELMCREW_TEAM_SELECTOR: `${TEST_LABEL}=${run}`,
          HELMCREW_TEAM_REFRESH_MS: '500',
          HELMCREW_NOTIFY_RATE_PER_SECOND: '50',
          HELMCREW_NOTIFY_RATE_BURST: '5',
          HEALTH_PORT: String(healthPort),
          LOG_LEVEL: 'info',
        },
        stdout: 'ignore',
        stderr: { file: join(dir, 'run.log') },
        reject: false,
        forceKillAfterDelay: false,
      }),
    );
    children.push(spawnNotify(env, run, join(dir, 'notify.log'), { HELMCREW_NOTIFY_RATE_PER_SECOND: '50', HELMCREW_NOTIFY_RATE_BURST: '5' }));
  });
  afterAll(async () => {
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(children);
    await publisher.close();
    redis.disconnect();
    await receiver.stop();
    await deleteTeams(kube, run);
    await deleteNamespace(kubeConfig, namespace);
  });

  it('`helmcrew run` reconciles and tells: an install is heard once', async () => {
    const generation = await applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, 'unicorn', { chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' } }),
    );
    await waitForReconciled(kubeConfig, namespace, 'unicorn', generation);
    await receiver.waitFor(() => receiver.delivered('/hook').some((r) => r.json.event === 'InstallSucceeded'), 30_000, 'the install to be heard');
    // Proves that nothing more happens: a late duplicate or a stray delivery would show up now.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const install = receiver.delivered('/hook').filter((r) => (r.json.release as { name: string }).name === 'unicorn');
    expect(install.filter((r) => r.json.event === 'InstallSucceeded')).toHaveLength(1);
    expect(install.at(-1)!.json.event).toBe('InstallSucceeded');
  });

  it('40 notifications over 8 releases: each delivered once, in order per release, by two replicas', async () => {
    const sent: ReleaseNotification[] = [];
    for (let op = 0; op < 5; op++) {
      for (let r = 0; r < 8; r++) sent.push(notificationFor({ namespace, name: `app-${r}` }, 'UpgradeSucceeded', `app-${r}:op${op}`));
    }
    for (const n of sent) await publisher.publish(n);
    const ids = new Set(sent.map((n) => n.id));
    const mine = () => receiver.requests.filter((r) => ids.has(r.json.id as string));
    await receiver.waitFor(() => new Set(mine().map((r) => r.json.id)).size === sent.length, 60_000, 'all 40');
    // Proves that nothing more happens: a late duplicate or a stray delivery would show up now.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(mine()).toHaveLength(sent.length);
    for (let r = 0; r < 8; r++) {
      expect(
        mine()
          .filter((q) => (q.json.release as { name: string }).name === `app-${r}`)
          .map((q) => q.json.operationId),
      ).toEqual([0, 1, 2, 3, 4].map((op) => `app-${r}:op${op}`));
    }
    const logs = (await readFile(join(dir, 'run.log'), 'utf8')) + (await readFile(join(dir, 'notify.log'), 'utf8'));
    expect(logs).not.toContain(key);
  });

  it("`helmcrew run` serves every part on one port: the controller's and notify's metrics and readiness; SIGTERM exits 0", async () => {
    const ready = await fetch(`http://127.0.0.1:${healthPort}/readyz`);
    expect([ready.status, await ready.text()]).toEqual([200, 'ok']);
    const scraped = await scrape(healthPort);
    expect(sample(scraped, 'helmcrew_helm_processes_total', { verb: 'install', result: 'success' })).toBe(1);
    expect(sample(scraped, 'helmcrew_releases', { ready: 'true' })).toBe(1);
    // Deliveries were shared with the other notify process: this one made some of them.
    expect(sample(scraped, 'helmcrew_notify_deliveries_total', { provider: 'webhook', result: 'success' })).toBeGreaterThan(0);
    const queues = new Set(scraped.series.get('helmcrew_queue_jobs')?.map((s) => s.labels.queue));
    expect([...queues].sort()).toEqual(['notify', 'notify-delivery', 'reconcile']);
    const runProcess = children[0]!;
    runProcess.kill('SIGTERM');
    expect((await runProcess).exitCode).toBe(0);
  });
});
