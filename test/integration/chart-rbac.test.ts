import { execa } from 'execa';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CoreV1Api } from '@kubernetes/client-node';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { makeKubeClients } from '../../src/controller/kube/client.js';
import { ReleaseStorage } from '../../src/controller/helm/release-storage.js';
import { REPO_ROOT } from '../../src/dev/paths.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { deleteNamespace, freshNamespace, startTestController, testEnv, uniqueName } from '../support/fixtures.js';
import { leavePendingUpgrade } from '../support/pending-release.js';

/**
 * Issue 5: the chart's least-privilege RBAC (rbac.clusterAdmin=false), applied to the test
 * cluster as rendered and asked with `kubectl auth can-i` as the controller's ServiceAccount.
 */
describe('helm/helmcrew RBAC with rbac.clusterAdmin=false', () => {
  const { env, kubeConfig } = testEnv();
  const releaseName = uniqueName('hc');
  let namespace: string;
  let rbacYaml: string;
  let controllerUser: string;

  const kubectl = (args: string[], input?: string) =>
    execa(env.kubectlBin, ['--kubeconfig', env.kubeconfig, ...args], { input, reject: false });

  beforeAll(async () => {
    namespace = await freshNamespace(kubeConfig, 'rbac');
    controllerUser = `system:serviceaccount:${namespace}:${releaseName}`;
    const rendered = await execa(env.helmBin, ['template', releaseName, join(REPO_ROOT, 'helm/helmcrew'), '--namespace', namespace, '--set', 'redis.url=redis://redis:6379', '--set', 'rbac.clusterAdmin=false']);
    const docs = parseAllDocuments(rendered.stdout).map((d) => d.toJSON() as { kind?: string } | null);
    const rbacDocs = docs.filter((d) => ['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding'].includes(d?.kind ?? ''));
    expect(rbacDocs.map((d) => d!.kind).sort()).toEqual(['ClusterRole', 'ClusterRoleBinding', 'ServiceAccount']);
    rbacYaml = rbacDocs.map((d) => stringify(d)).join('---\n');
    const applied = await kubectl(['apply', '-n', namespace, '-f', '-'], rbacYaml);
    expect(applied.exitCode, applied.stderr).toBe(0);
  });
  afterAll(async () => {
    if (rbacYaml) await kubectl(['delete', '-n', namespace, '--ignore-not-found', '-f', '-'], rbacYaml);
    if (namespace) await deleteNamespace(kubeConfig, namespace);
  });

  it.each([
    { ask: ['impersonate', 'serviceaccounts'], want: 'yes' },
    { ask: ['impersonate', 'users'], want: 'no' },
    { ask: ['impersonate', 'groups'], want: 'no' },
    { ask: ['impersonate', 'groups/system:masters'], want: 'no' },
    { ask: ['impersonate', 'users/admin'], want: 'no' },
    { ask: ['update', 'secrets', '-n', 'kube-system'], want: 'yes' },
    { ask: ['patch', 'secrets', '-n', 'default'], want: 'yes' },
    { ask: ['list', 'secrets', '-n', 'default'], want: 'yes' },
    { ask: ['delete', 'secrets', '-n', 'default'], want: 'no' },
    { ask: ['create', 'secrets', '-n', 'default'], want: 'no' },
    { ask: ['get', 'configmaps', '-n', 'default'], want: 'yes' },
    { ask: ['update', 'configmaps', '-n', 'default'], want: 'no' },
    { ask: ['patch', 'helmreleases.helmcrew.dev', '--subresource=status', '-n', 'default'], want: 'yes' },
    { ask: ['watch', 'helmreleases.helmcrew.dev'], want: 'yes' },
    { ask: ['create', 'helmreleases.helmcrew.dev', '-n', 'default'], want: 'no' },
    { ask: ['create', 'events', '-n', 'default'], want: 'yes' },
    { ask: ['create', 'deployments.apps', '-n', 'default'], want: 'no' },
    { ask: ['create', 'clusterrolebindings.rbac.authorization.k8s.io'], want: 'no' },
    { ask: ['escalate', 'clusterroles.rbac.authorization.k8s.io'], want: 'no' },
  ])('can-i $ask → $want', async ({ ask, want }) => {
    const answer = await kubectl(['auth', 'can-i', ...ask, `--as=${controllerUser}`]);
    expect(answer.stdout.trim()).toBe(want);
  });

  it('with exactly these rights the controller unlocks a release left pending by a helm process that died', async () => {
    const spec = { chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' }, timeout: '3s' };
    // Installed by a controller with full rights (as helm would be by an impersonated tenant)...
    const installer = await startTestController([namespace]);
    try {
      await waitForReconciled(kubeConfig, namespace, 'stuck', await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'stuck', spec)));
    } finally {
      await installer.stop();
    }
    const pending = await leavePendingUpgrade(kubeConfig, namespace, 'stuck', 1, new Date(Date.now() - 60 * 60_000));

    // ...then a controller whose every request is made as the chart's ServiceAccount.
    const dir = await mkdtemp(join(tmpdir(), 'helmcrew-rbac-'));
    const limited = parse(await readFile(env.kubeconfig, 'utf8')) as { users: Array<{ user: Record<string, unknown> }> };
    for (const u of limited.users) u.user.as = controllerUser;
    const limitedKubeconfig = join(dir, 'kubeconfig');
    await writeFile(limitedKubeconfig, stringify(limited), { mode: 0o600 });
    const controller = await startTestController([namespace], { KUBECONFIG: limitedKubeconfig });
    try {
      const storage = new ReleaseStorage(makeKubeClients(kubeConfig));
      const deadline = Date.now() + 60_000;
      let status: string | undefined;
      while (Date.now() < deadline) {
        status = (await storage.history(namespace, 'stuck')).releases.find((r) => r.revision === pending)?.status;
        if (status === 'failed') break;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(status).toBe('failed');
      const events = await kubeConfig.makeApiClient(CoreV1Api).listNamespacedEvent({ namespace, fieldSelector: 'involvedObject.name=stuck' });
      expect(events.items.map((e) => e.reason)).toContain('ReleaseUnlocked');
    } finally {
      await controller.stop();
    }
  });
});
