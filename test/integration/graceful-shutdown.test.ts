import { execa, type ResultPromise } from 'execa';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { freePorts } from '../../src/dev/free-port.js';
import { REPO_ROOT } from '../../src/dev/paths.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { deleteNamespace, freshNamespace, testEnv, uniqueName } from '../support/fixtures.js';
import { createHelmShim, type HelmShim } from '../support/helm-shim.js';
import { sample, scrape } from '../support/scrape.js';
import { eventually } from '../support/eventually.js';
import { CONTROLLER_RIGHTS_SETTINGS } from '../../src/dev/dev-settings.js';

/** Long enough that a takeover by expiry is clearly slower than a lease handed back. */
const LEASE_SECONDS = 15;

/** Issue 20: SIGTERM mid-upgrade lets helm finish, takes no new work, exits 0; the next replica carries on. */
describe('graceful shutdown of `helmcrew controller`', () => {
  const { env, kubeConfig } = testEnv();
  const storage = new ReleaseStorage(makeKubeClients(kubeConfig));
  let namespace: string;
  let dir: string;
  let helm: HelmShim;
  const prefix = uniqueName('hc-shutdown');
  const children: ResultPromise[] = [];

  const spawnController = (replica: string, graceSeconds: number) => {
    const child = execa(process.execPath, [join(REPO_ROOT, 'bin/helmcrew.js'), 'controller'], {
      env: {
        KUBECONFIG: env.kubeconfig,
        REDIS_URL: env.redisUrl,
        HELM_BIN: helm.bin,
        WATCH_NAMESPACES: namespace,
        ...CONTROLLER_RIGHTS_SETTINGS,
        HELMCREW_QUEUE_PREFIX: prefix,
        HELMCREW_WORK_DIR: join(dir, `work-${replica}`),
        HELMCREW_SHUTDOWN_GRACE_SECONDS: String(graceSeconds),
        LOG_LEVEL: 'info',
      },
      stdout: 'ignore',
      stderr: { file: join(dir, `controller-${replica}.log`) },
      reject: false,
      // execa would SIGKILL 5 s after kill(): the drain is what is tested here.
      forceKillAfterDelay: false,
    });
    children.push(child);
    return child;
  };
  const declare = (name: string, version: string) =>
    applyHelmRelease(kubeConfig, helmReleaseObject(namespace, name, { chart: { repository: env.chartRepoUrl, name: 'unicorn', version } }));
  const waitForUpgrades = (count: number) =>
    eventually(async () => expect(await helm.count('upgrade')).toBeGreaterThanOrEqual(count), { timeoutMs: 30_000, intervalMs: 100 });

  beforeAll(async () => {
    namespace = await freshNamespace(kubeConfig, 'shutdown');
    dir = await mkdtemp(join(tmpdir(), 'helmcrew-shutdown-'));
    helm = await createHelmShim(dir, env.helmBin);
  });
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await Promise.all(children);
    await deleteNamespace(kubeConfig, namespace); // finalizers stripped; gone in the background (the guard checks it is on its way out)
  });

  it('SIGTERM mid-upgrade: helm finishes, no new work is taken, exit 0, no pending release; the next replica applies what came later', async () => {
    const first = spawnController('a', 60);
    await waitForReconciled(kubeConfig, namespace, 'drained', await declare('drained', '1.0.0'));
    await helm.setUpgradeDelay(5);
    await declare('drained', '2.0.0');
    await waitForUpgrades(1);
    const signalled = Date.now();
    first.kill('SIGTERM');
    // A change made during the drain is left for the next replica: made once the controller
    // says it takes no new work (src/cli/commands/until-signal.ts), and before it has exited.
    await eventually(async () => expect(await readFile(join(dir, 'controller-a.log'), 'utf8')).toContain('stopping: taking no new work'), {
      timeoutMs: 30_000,
    });
    await helm.setUpgradeDelay(0);
    const later = await declare('drained', '3.0.0');
    expect(first.exitCode).toBeNull();

    const result = await first;
    expect(result.exitCode).toBe(0);
    // It waited for the held upgrade (about 5 s) rather than leaving it half done.
    expect(Date.now() - signalled).toBeGreaterThan(4000);
    expect(await helm.count('upgrade')).toBe(1);
    const history = await storage.history(namespace, 'drained');
    expect(history.latest).toMatchObject({ revision: 2, status: 'deployed', chartVersion: '2.0.0' });
    expect(history.releases.some((r) => r.status.startsWith('pending'))).toBe(false);

    void spawnController('b', 60); // awaited in afterAll or the next test
    await waitForReconciled(kubeConfig, namespace, 'drained', later);
    expect((await storage.history(namespace, 'drained')).latest).toMatchObject({ revision: 3, status: 'deployed', chartVersion: '3.0.0' });
  });

  it('an upgrade longer than the grace period does not hold the process: it exits 1 once the grace is over', async () => {
    const replica = children.at(-1)!;
    replica.kill('SIGTERM');
    expect((await replica).exitCode).toBe(0);
    const short = spawnController('c', 2);
    await waitForReconciled(kubeConfig, namespace, 'slow', await declare('slow', '1.0.0'));
    await helm.setUpgradeDelay(20);
    const upgradesBefore = await helm.count('upgrade');
    await declare('slow', '2.0.0');
    await waitForUpgrades(upgradesBefore + 1);
    const signalled = Date.now();
    short.kill('SIGTERM');
    expect((await short).exitCode).toBe(1);
    expect(Date.now() - signalled).toBeLessThan(8000);
    // helm went with it (controller/helm/helm-children.ts): the shim's upgrade, still in its 20 s delay, is gone.
    const helmUpgrades = async () => (await execa('ps', ['-eo', 'args'])).stdout.split('\n').filter((line) => line.startsWith(`bash ${helm.bin} upgrade`));
    await eventually(async () => expect(await helmUpgrades()).toEqual([]), { timeoutMs: 5000, intervalMs: 100 });
    await helm.setUpgradeDelay(0);
  });
});

/** Issue 20: with two replicas and leader election, SIGTERM on the leader mid-upgrade: it drains and exits 0, the running follower takes the lease at once and carries on. */
describe('graceful shutdown with a second replica running', () => {
  const { env, kubeConfig } = testEnv();
  const storage = new ReleaseStorage(makeKubeClients(kubeConfig));
  const prefix = uniqueName('hc-handover');
  let namespace: string;
  let dir: string;
  const replicas = new Map<string, { child: ResultPromise; helm: HelmShim; port: number }>();

  const spawnReplica = async (name: string, port: number) => {
    const helm = await createHelmShim(await mkdtemp(join(dir, `helm-${name}-`)), env.helmBin);
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
        HELMCREW_SHUTDOWN_GRACE_SECONDS: '60',
        HELMCREW_LEADER_ELECTION: 'true',
        HELMCREW_LEASE_DURATION_SECONDS: String(LEASE_SECONDS),
        HELMCREW_LEASE_RETRY_MS: '500',
        HEALTH_PORT: String(port),
        LOG_LEVEL: 'info',
      },
      stdout: 'ignore',
      stderr: { file: join(dir, `controller-${name}.log`) },
      reject: false,
      forceKillAfterDelay: false,
    });
    const replica = { child, helm, port };
    replicas.set(name, replica);
    return replica;
  };
  const leads = async (port: number) => sample(await scrape(port), 'helmcrew_leader') === 1;
  // A probe that throws is tried again; on time-out its last error (or `false`) is what fails.
  const until = (what: string, probe: () => Promise<boolean>, timeoutMs: number) =>
    eventually(async () => expect(await probe(), what).toBe(true), { timeoutMs, intervalMs: 100 });
  const declare = (version: string) =>
    applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'handed', { chart: { repository: env.chartRepoUrl, name: 'unicorn', version } }));

  beforeAll(async () => {
    namespace = await freshNamespace(kubeConfig, 'handover');
    dir = await mkdtemp(join(tmpdir(), 'helmcrew-handover-'));
  });
  afterAll(async () => {
    for (const { child } of replicas.values()) child.kill('SIGKILL');
    await Promise.all([...replicas.values()].map((r) => r.child));
    await deleteNamespace(kubeConfig, namespace); // finalizers stripped; gone in the background (the guard checks it is on its way out)
  });

  it('SIGTERM on the leader mid-upgrade: exit 0 and no pending release; the follower leads long before the lease would lapse and applies the change made during the drain', async () => {
    const [portA, portB] = await freePorts(2);
    // A alone first, so it leads and its worker is the one that takes the upgrade.
    const a = await spawnReplica('a', portA!);
    await until('a to lead', () => leads(portA!), 30_000);
    await waitForReconciled(kubeConfig, namespace, 'handed', await declare('1.0.0'));
    // a's upgrade is held until b leads and the next change is made (was a fixed 15 s: as long as b's start could take).
    const held = await a.helm.hold('upgrade');
    await declare('2.0.0');
    await until("a's upgrade to start", async () => (await a.helm.count('upgrade')) === 1, 30_000);
    const b = await spawnReplica('b', portB!);
    await until('b to be ready as a follower', async () => (await fetch(`http://127.0.0.1:${portB}/readyz`)).status === 200 && !(await leads(portB!)), 30_000);

    const signalled = Date.now();
    a.child.kill('SIGTERM');
    // a hands the Lease back when it stops watching, not when its drain ends.
    await until('b to lead', () => leads(portB!), LEASE_SECONDS * 1000);
    expect(Date.now() - signalled).toBeLessThan(LEASE_SECONDS * 1000 * 0.4);
    expect(a.child.exitCode).toBeNull();
    const later = await declare('3.0.0');
    // Draining (it says it takes no new work) and still running while its upgrade is held: it
    // waits for that upgrade rather than leaving it half done; released, it lets it finish.
    await until('a to drain', async () => (await readFile(join(dir, 'controller-a.log'), 'utf8')).includes('stopping: taking no new work'), 30_000);
    expect(a.child.exitCode).toBeNull();
    await held.release();

    const result = await a.child;
    expect(result.exitCode).toBe(0);
    const drained = await storage.history(namespace, 'handed');
    expect(drained.releases.some((r) => r.status.startsWith('pending'))).toBe(false);
    expect(drained.releases.find((r) => r.revision === 2)).toMatchObject({ chartVersion: '2.0.0' });

    await waitForReconciled(kubeConfig, namespace, 'handed', later);
    const history = await storage.history(namespace, 'handed');
    expect(history.latest).toMatchObject({ revision: 3, status: 'deployed', chartVersion: '3.0.0' });
    expect(history.releases.some((r) => r.status.startsWith('pending') || r.status === 'failed')).toBe(false);
    expect(await a.helm.count('upgrade')).toBe(1);
    expect(await b.helm.count('upgrade')).toBe(1);
  }, 180_000);
});
