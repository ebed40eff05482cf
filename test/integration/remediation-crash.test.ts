import { execa, type ResultPromise } from 'execa';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { REPO_ROOT } from '../../src/dev/paths.js';
import { applyHelmRelease, deploymentAvailable, helmReleaseObject, servedColor, waitForReconciled } from '../../src/dev/releases.js';
import { deleteNamespace, freshNamespace, testEnv, uniqueName } from '../support/fixtures.js';
import { createHelmShim, type HelmShim } from '../support/helm-shim.js';
import { eventually } from '../support/eventually.js';
import { CONTROLLER_RIGHTS_SETTINGS } from '../../src/dev/dev-settings.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Issue 8: the controller process is SIGKILLed while it rolls a broken upgrade back. */
describe('SIGKILL of the controller during an automatic rollback', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const api = new HelmReleaseApi(kube);
  const storage = new ReleaseStorage(kube);
  let namespace: string;
  let helm: HelmShim;
  let dir: string;
  let prefix: string;
  const children: ResultPromise[] = [];

  const startController = (name: string) => {
    const child = execa(process.execPath, [join(REPO_ROOT, 'bin/helmcrew.js'), 'controller'], {
      env: {
        KUBECONFIG: env.kubeconfig,
        REDIS_URL: env.redisUrl,
        HELM_BIN: helm.bin,
        WATCH_NAMESPACES: namespace,
        ...CONTROLLER_RIGHTS_SETTINGS,
        HELMCREW_QUEUE_PREFIX: prefix,
        HELMCREW_WORK_DIR: join(dir, 'work'),
        HELMCREW_RESYNC_TICK_MS: '500',
        // The second controller takes the killed one's rollback over after its timeout plus this
        // margin (60 s by default): the rule is the same, the wait shorter. Still longer than helm
        // needs to give up by its own --timeout, so the broken upgrade fails rather than being killed.
        HELMCREW_HELM_KILL_MARGIN_SECONDS: '3',
        // The killed controller's job stays taken in Redis until this lock lapses and the
        // stalled-job check gives it back (30 s by default, ~60 s to converge): the same, sooner.
        HELMCREW_RECONCILE_LOCK_MS: '3000',
        LOG_LEVEL: 'info',
      },
      stdout: 'ignore',
      stderr: { file: join(dir, `${name}.log`) },
      reject: false,
      // Its own process group: killing the group is a pod's container being killed, helm included.
      detached: true,
    });
    children.push(child);
    return child;
  };

  beforeAll(async () => {
    namespace = await freshNamespace(kubeConfig, 'crash-rb');
    dir = await mkdtemp(join(tmpdir(), 'helmcrew-crash-rb-'));
    helm = await createHelmShim(dir, env.helmBin);
    prefix = uniqueName('hc-crash-rb');
  });
  afterAll(async () => {
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(children);
    await deleteNamespace(kubeConfig, namespace);
  });

  const declare = (version: string) =>
    applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, 'unicorn', {
        chart: { repository: env.chartRepoUrl, name: 'unicorn', version },
        // Long enough for unicorn 3.0.0 to be ready on the fake nodes; 4.0.0 never is, so its
        // upgrade fails after this, and the takeover waits this plus the margin.
        timeout: '6s',
        interval: '2s',
        upgrade: { remediation: { retries: 0, strategy: 'rollback' } },
      }),
    );

  it('converges after a restart: rolled back to green once, nothing pending, Stalled with what to do', async () => {
    const first = startController('first');
    await waitForReconciled(kubeConfig, namespace, 'unicorn', await declare('3.0.0'));
    // The rollback's helm starts 3 s late, so the kill lands while the rollback is under way.
    await helm.setDelay('rollback', 3);
    const broken = await declare('4.0.0');
    await eventually(
      async () => {
        const reconciling = (await api.get(namespace, 'unicorn'))?.status?.conditions?.find((c) => c.type === 'Reconciling');
        expect(reconciling).toMatchObject({ reason: 'Remediating', message: expect.stringMatching(/rolling back revision 2 .* to revision 1/) });
      },
      { intervalMs: 100 },
    );
    // The status is written just before helm is started: wait for the shim to have started (it
    // then holds the rollback 3 s), so the kill lands inside the rollback, not before it.
    await eventually(async () => expect(await helm.count('rollback')).toBe(1), { intervalMs: 20 });
    process.kill(-first.pid!, 'SIGKILL');
    expect((await first).signal).toBe('SIGKILL');
    // Proves that nothing happens: the rollback's helm, held 3 s by the shim, died with its controller.
    await sleep(3500);
    // Killed with its controller: the rollback's helm never ran.
    expect(await helm.count('rollback')).toBe(1);
    expect((await storage.history(namespace, 'unicorn')).latest).toMatchObject({ revision: 2, status: 'failed' });

    await helm.setDelay('rollback', 0);
    void startController('second'); // a child process, kept in `children` and killed in afterAll
    const restarted = Date.now();
    const release = await waitForReconciled(kubeConfig, namespace, 'unicorn', broken, 120_000);
    // Taken over once the killed job's lock lapsed (HELMCREW_RECONCILE_LOCK_MS, ~2× for the
    // stalled-job check) and its attempt's timeout plus margin passed: seconds, not BullMQ's 60.
    expect(Date.now() - restarted).toBeLessThan(30_000);
    expect(release.status?.conditions?.find((c) => c.type === 'Stalled')).toMatchObject({ status: 'True', reason: 'RetriesExceeded' });
    expect(release.status?.conditions?.find((c) => c.type === 'Stalled')?.message).toMatch(/No retries left/);

    expect(release.status?.conditions?.find((c) => c.type === 'Remediated')).toMatchObject({ status: 'True', reason: 'RollbackSucceeded' });
    const history = await storage.history(namespace, 'unicorn');
    expect(history.releases.filter((r) => r.status.startsWith('pending-'))).toEqual([]);
    expect(history.releases.map((r) => [r.revision, r.chartVersion, r.status])).toEqual([
      [3, '3.0.0', 'deployed'],
      [2, '4.0.0', 'failed'],
      [1, '3.0.0', 'superseded'],
    ]);
    expect(history.deployed).toMatchObject({ chartVersion: '3.0.0' });
    expect(history.latest).toBe(history.deployed);
    expect(await servedColor(kubeConfig, namespace, 'unicorn')).toBe('green');
    expect(await deploymentAvailable(kubeConfig, namespace, 'unicorn')).toBe(true);
    // The periodic checks (interval 2s) start no more helm once it has converged.
    const before = (await helm.invocations()).length;
    await sleep(4000);
    expect((await helm.invocations()).length).toBe(before);
  });
});
