import { execa } from 'execa';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { pino } from 'pino';
import { readControllerConfig } from '../../src/controller/config.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { REPO_ROOT } from '../../src/dev/paths.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { deleteNamespace, freshNamespace, startTestController, testEnv, uniqueName } from '../support/fixtures.js';
import { leavePendingUpgrade } from '../support/pending-release.js';
import { eventually } from '../support/eventually.js';

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

  const kubectl = (args: string[], input?: string) => execa(env.kubectlBin, ['--kubeconfig', env.kubeconfig, ...args], { input, reject: false });

  beforeAll(async () => {
    namespace = await freshNamespace(kubeConfig, 'rbac');
    controllerUser = `system:serviceaccount:${namespace}:${releaseName}`;
    const rendered = await execa(env.helmBin, [
      'template',
      releaseName,
      join(REPO_ROOT, 'helm/helmcrew'),
      '--namespace',
      namespace,
      '--set',
      'redis.url=redis://redis:6379',
      '--set',
      'rbac.clusterAdmin=false',
    ]);
    const docs = parseAllDocuments(rendered.stdout).map((d) => d.toJSON() as { kind?: string } | null);
    const rbacDocs = docs.filter((d) => ['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'].includes(d?.kind ?? ''));
    expect(rbacDocs.map((d) => d!.kind).sort()).toEqual(['ClusterRole', 'ClusterRoleBinding', 'Role', 'Role', 'RoleBinding', 'RoleBinding', 'ServiceAccount']);
    rbacYaml = rbacDocs.map((d) => stringify(d)).join('---\n');
    const applied = await kubectl(['apply', '-n', namespace, '-f', '-'], rbacYaml);
    expect(applied.exitCode, applied.stderr).toBe(0);
  });
  afterAll(async () => {
    if (rbacYaml) await kubectl(['delete', '-n', namespace, '--ignore-not-found', '-f', '-'], rbacYaml);
    if (namespace) await deleteNamespace(kubeConfig, namespace);
  });

  it('leader election: its own Lease in its namespace, no other', async () => {
    const can = async (...ask: string[]) => (await kubectl(['auth', 'can-i', ...ask, `--as=${controllerUser}`])).stdout.trim();
    expect(await can('create', 'leases.coordination.k8s.io', '-n', namespace)).toBe('yes');
    expect(await can('update', 'leases.coordination.k8s.io/helmcrew-controller-leader', '-n', namespace)).toBe('yes');
    expect(await can('update', 'leases.coordination.k8s.io/kube-scheduler', '-n', namespace)).toBe('no');
    expect(await can('delete', 'leases.coordination.k8s.io/helmcrew-controller-leader', '-n', namespace)).toBe('no');
    expect(await can('create', 'leases.coordination.k8s.io', '-n', 'kube-system')).toBe('no');
  });

  it('tenancy values reach the controller as the settings it parses', async () => {
    const rendered = await execa(env.helmBin, [
      'template',
      releaseName,
      join(REPO_ROOT, 'helm/helmcrew'),
      '--set',
      'redis.url=redis://redis:6379',
      '--set',
      'tenancy.defaultServiceAccount=helm-deployer',
      '--set',
      'tenancy.allowCrossNamespaceTargets=false',
    ]);
    const deployment = parseAllDocuments(rendered.stdout)
      .map((d) => d.toJSON() as { kind?: string; spec?: { template: { spec: { containers: Array<{ env: Array<{ name: string; value?: string }> }> } } } })
      .find((d) => d?.kind === 'Deployment');
    const vars = Object.fromEntries(deployment!.spec!.template.spec.containers[0]!.env.filter((e) => e.value !== undefined).map((e) => [e.name, e.value]));
    expect(readControllerConfig(vars).tenancy).toEqual({ defaultServiceAccount: 'helm-deployer', allowCrossNamespaceTargets: false });
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
    { ask: ['delete', 'secrets/helmcrew-values-digest-key'], want: 'no' },
    { ask: ['get', 'configmaps', '-n', 'default'], want: 'yes' },
    { ask: ['list', 'configmaps', '-n', 'default'], want: 'yes' },
    { ask: ['watch', 'configmaps', '-n', 'default'], want: 'yes' },
    { ask: ['watch', 'secrets', '-n', 'default'], want: 'yes' },
    { ask: ['update', 'configmaps', '-n', 'default'], want: 'no' },
    { ask: ['patch', 'configmaps/helmcrew-slack-messages', '-n', 'default'], want: 'yes' },
    { ask: ['patch', 'configmaps/unicorn-values', '-n', 'default'], want: 'no' },
    { ask: ['patch', 'helmreleases.helmcrew.dev', '--subresource=status', '-n', 'default'], want: 'yes' },
    { ask: ['watch', 'helmreleases.helmcrew.dev'], want: 'yes' },
    { ask: ['create', 'helmreleases.helmcrew.dev', '-n', 'default'], want: 'no' },
    { ask: ['watch', 'freezes.helmcrew.dev'], want: 'yes' },
    { ask: ['create', 'freezes.helmcrew.dev'], want: 'yes' },
    { ask: ['delete', 'freezes.helmcrew.dev'], want: 'yes' },
    { ask: ['update', 'freezes.helmcrew.dev'], want: 'no' },
    { ask: ['create', 'events', '-n', 'default'], want: 'yes' },
    { ask: ['create', 'deployments.apps', '-n', 'default'], want: 'no' },
    { ask: ['create', 'clusterrolebindings.rbac.authorization.k8s.io'], want: 'no' },
    { ask: ['escalate', 'clusterroles.rbac.authorization.k8s.io'], want: 'no' },
  ])('can-i $ask → $want', async ({ ask, want }) => {
    const answer = await kubectl(['auth', 'can-i', ...ask, `--as=${controllerUser}`]);
    expect(answer.stdout.trim()).toBe(want);
  });

  /** A kubeconfig that authenticates as the chart's ServiceAccount with a real token (TokenRequest). */
  const controllerKubeconfig = async (): Promise<string> => {
    const token = await kubeConfig.makeApiClient(CoreV1Api).createNamespacedServiceAccountToken({
      namespace,
      name: releaseName,
      body: { spec: { audiences: [], expirationSeconds: 3600 } },
    });
    const admin = parse(await readFile(env.kubeconfig, 'utf8')) as { users: Array<{ name: string; user: Record<string, unknown> }> };
    for (const u of admin.users) admin.users.splice(admin.users.indexOf(u), 1, { name: u.name, user: { token: token.status!.token } });
    const path = join(await mkdtemp(join(tmpdir(), 'helmcrew-rbac-')), 'kubeconfig');
    await writeFile(path, stringify(admin), { mode: 0o600 });
    return path;
  };

  it('the controller’s token impersonates a tenant ServiceAccount, but no user or group', async () => {
    const kc = await controllerKubeconfig();
    const asTenant = await execa(
      env.kubectlBin,
      ['--kubeconfig', kc, 'auth', 'can-i', 'create', 'deployments.apps', '-n', namespace, `--as=system:serviceaccount:${namespace}:tenant`],
      { reject: false },
    );
    expect(asTenant.stdout.trim()).toBe('no'); // allowed to ask as the tenant; the tenant has no rights yet
    const asAdmin = await execa(env.kubectlBin, ['--kubeconfig', kc, 'get', 'secrets', '-n', namespace, '--as=admin', '--as-group=system:masters'], {
      reject: false,
    });
    expect(asAdmin.exitCode).not.toBe(0);
    expect(asAdmin.stderr).toMatch(/cannot impersonate/);
  });

  it('with exactly these rights the controller unlocks a release left pending, and installs for a tenant as its ServiceAccount', async () => {
    const chart = { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' };
    // Installed by a controller with full rights...
    const installer = await startTestController([namespace]);
    try {
      await waitForReconciled(
        kubeConfig,
        namespace,
        'stuck',
        await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'stuck', { chart, timeout: '3s' })),
      );
    } finally {
      await installer.stop();
    }
    const pending = await leavePendingUpgrade(kubeConfig, namespace, 'stuck', 1, new Date(Date.now() - 60 * 60_000));
    await kubeConfig.makeApiClient(CoreV1Api).createNamespacedServiceAccount({ namespace, body: { metadata: { name: 'tenant' } } });
    await kubeConfig.makeApiClient(RbacAuthorizationV1Api).createNamespacedRoleBinding({
      namespace,
      body: {
        metadata: { name: 'tenant-admin' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'admin' },
        subjects: [{ kind: 'ServiceAccount', name: 'tenant', namespace }],
      },
    });

    // ...then a controller that authenticates as the chart's ServiceAccount, nothing more.
    // HELMCREW_NAMESPACE: the chart's Role lets it create its values digest key only in its own namespace.
    const warnings: string[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(line) });
    const controller = await startTestController([namespace], { KUBECONFIG: await controllerKubeconfig(), HELMCREW_NAMESPACE: namespace }, log);
    try {
      const storage = new ReleaseStorage(makeKubeClients(kubeConfig));
      await eventually(async () => expect((await storage.history(namespace, 'stuck')).releases.find((r) => r.revision === pending)?.status).toBe('failed'));
      const events = await kubeConfig.makeApiClient(CoreV1Api).listNamespacedEvent({ namespace, fieldSelector: 'involvedObject.name=stuck' });
      expect(events.items.map((e) => e.reason)).toContain('ReleaseUnlocked');

      const generation = await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'tenant-app', { chart, serviceAccountName: 'tenant' }));
      const release = await waitForReconciled(kubeConfig, namespace, 'tenant-app', generation);
      expect(release.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True', reason: 'InstallSucceeded' });
      // Every watch it keeps (HelmReleases, Teams, valuesFrom ConfigMaps and Secrets) is allowed
      // (the upgrade of "stuck", which names no ServiceAccount, is forbidden to helm: expected).
      expect(warnings.filter((line) => /watch failed|informer failed/i.test(line))).toEqual([]);
    } finally {
      await controller.stop();
    }
  });
});
