import { CoordinationV1Api } from '@kubernetes/client-node';
import { execa, type ResultPromise } from 'execa';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePorts } from '../../src/dev/free-port.js';
import { REPO_ROOT } from '../../src/dev/paths.js';
import { leaseName } from '../../src/controller/leader/lease-decision.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { deleteNamespace, freshNamespace, testEnv, uniqueName } from '../support/fixtures.js';
import { createHelmShim, type HelmShim } from '../support/helm-shim.js';
import { sample, scrape } from '../support/scrape.js';
import { eventually } from '../support/eventually.js';
import { CONTROLLER_RIGHTS_SETTINGS } from '../../src/dev/dev-settings.js';

const LEASE_SECONDS = 4;

/** Issue 20: with leader election, one replica watches and resyncs; on SIGKILL another takes over within the lease. */
describe('leader election through a Lease', () => {
  const { env, kubeConfig } = testEnv();
  let namespace: string;
  let helm: HelmShim;
  const replicas: Array<{ name: string; port: number; child: ResultPromise }> = [];

  /** HelmRelease watches of namespace scope open at the API server (its own metrics). */
  const namespacedWatches = async () => {
    const { stdout } = await execa(env.kubectlBin, ['--kubeconfig', env.kubeconfig, 'get', '--raw', '/metrics']);
    const line = stdout
      .split('\n')
      .find(
        (l) =>
          l.startsWith('apiserver_longrunning_requests{') &&
          l.includes('resource="helmreleases"') &&
          l.includes('scope="namespace"') &&
          l.includes('verb="WATCH"'),
      );
    return line ? Number(line.split(' ').at(-1)) : 0;
  };
  const resyncTicks = async (port: number) => sample(await scrape(port), 'helmcrew_resync_ticks_total');
  const leaderFlags = async () =>
    Promise.all(replicas.map(async (r) => (r.child.exitCode === null && r.child.signalCode === null ? sample(await scrape(r.port), 'helmcrew_leader') : -1)));
  const until = (what: string, probe: () => Promise<boolean>, timeoutMs: number) =>
    eventually(
      async () => {
        if (!(await probe())) throw new Error(`no ${what} yet`);
      },
      { timeoutMs, intervalMs: 100 },
    );
  const declare = (version: string) =>
    applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'led', { chart: { repository: env.chartRepoUrl, name: 'unicorn', version } }));
  let baselineWatches = 0;
  const prefix = uniqueName('hc-leader');
  const lease = async () => (await kubeConfig.makeApiClient(CoordinationV1Api).readNamespacedLease({ namespace, name: leaseName(prefix) })).spec!;
  /** A Lease MicroTime as epoch ms (client-node hands a Date or a string). */
  const ms = (time: unknown) => new Date(time as string).getTime();

  beforeAll(async () => {
    namespace = await freshNamespace(kubeConfig, 'leader');
    const dir = await mkdtemp(join(tmpdir(), 'helmcrew-leader-'));
    helm = await createHelmShim(dir, env.helmBin);
    const ports = await freePorts(2);
    baselineWatches = await namespacedWatches();
    for (const [index, name] of ['a', 'b'].entries()) {
      const port = ports[index] ?? 0;
      const child = execa(process.execPath, [join(REPO_ROOT, 'bin/helmcrew.js'), 'controller'], {
        env: {
          KUBECONFIG: env.kubeconfig,
          REDIS_URL: env.redisUrl,
          HELM_BIN: helm.bin,
          WATCH_NAMESPACES: namespace,
          HELMCREW_NAMESPACE: namespace,
          ...CONTROLLER_RIGHTS_SETTINGS,
          HELMCREW_QUEUE_PREFIX: prefix,
          HELMCREW_WORK_DIR: join(dir, `work-${name}`),
          HELMCREW_RESYNC_TICK_MS: '500',
          HELMCREW_LEADER_ELECTION: 'true',
          HELMCREW_LEASE_DURATION_SECONDS: String(LEASE_SECONDS),
          HELMCREW_LEASE_RETRY_MS: '500',
          HEALTH_PORT: String(port),
          LOG_LEVEL: 'info',
        },
        stdout: 'ignore',
        stderr: { file: join(dir, `controller-${name}.log`) },
        reject: false,
      });
      replicas.push({ name, port, child });
    }
  });
  afterAll(async () => {
    for (const r of replicas) r.child.kill('SIGKILL');
    await Promise.all(replicas.map((r) => r.child));
    await deleteNamespace(kubeConfig, namespace); // finalizers stripped; gone in the background (the guard checks it is on its way out)
  });

  it('one replica leads: it alone watches HelmReleases at the API server and resyncs, and both are ready', async () => {
    await until('one leader', async () => (await leaderFlags()).sort().join() === '0,1', 30_000);
    await until('its watch open', async () => (await namespacedWatches()) === baselineWatches + 1, 10_000);
    const flags = await leaderFlags();
    const leader = replicas[flags.indexOf(1)]!;
    const follower = replicas[flags.indexOf(0)]!;
    const leaderTicks = await resyncTicks(leader.port);
    // Several resync ticks of the leader (every 500 ms) later, still one leader and one watch, and
    // the follower never ticked.
    await eventually(async () => expect(await resyncTicks(leader.port)).toBeGreaterThanOrEqual(leaderTicks + 4), { timeoutMs: 30_000 });
    expect((await leaderFlags()).sort()).toEqual([0, 1]);
    expect(await namespacedWatches()).toBe(baselineWatches + 1);
    expect(await resyncTicks(follower.port)).toBe(0);
    for (const r of replicas) expect((await fetch(`http://127.0.0.1:${r.port}/readyz`)).status).toBe(200);
    await waitForReconciled(kubeConfig, namespace, 'led', await declare('1.0.0'));
  });

  it('SIGKILL the leader: the other takes over within the lease duration, and a change made meanwhile is applied', async () => {
    const flags = await leaderFlags();
    const leader = replicas[flags.indexOf(1)]!;
    const follower = replicas[flags.indexOf(0)]!;
    leader.child.kill('SIGKILL');
    await leader.child;
    const held = await lease();
    const generation = await declare('2.0.0');
    await until('the follower to lead', async () => sample(await scrape(follower.port), 'helmcrew_leader') === 1, 30_000);
    // Read from the Lease (times the replicas wrote), not the test's clock: the follower took it
    // once it had expired — LEASE_SECONDS after the dead leader's last renewal — and at one of its
    // next tries (every 500 ms; a whole lease period allowed on top for a loaded machine).
    const taken = await lease();
    expect(taken.holderIdentity).not.toBe(held.holderIdentity);
    const waited = ms(taken.acquireTime) - ms(held.renewTime);
    expect(waited).toBeGreaterThanOrEqual(LEASE_SECONDS * 1000);
    expect(waited).toBeLessThan(2 * LEASE_SECONDS * 1000);
    // The new leader resyncs now.
    await until('the new leader to resync', async () => (await resyncTicks(follower.port)) > 0, 5000);
    await waitForReconciled(kubeConfig, namespace, 'led', generation);
    expect(await helm.count('upgrade')).toBe(1);
    await until('one watch again', async () => (await namespacedWatches()) === baselineWatches + 1, 10_000);
  });
});
