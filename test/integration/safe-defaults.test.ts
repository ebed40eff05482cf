import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CoreV1Api, RbacAuthorizationV1Api, type KubeConfig } from '@kubernetes/client-node';
import { impersonatingConfig } from '../../src/core/kube/client.js';
import { isNotFound } from '../../src/core/kube/errors.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { ESCALATION_CHART, PEEK_CHART, startEscalationRepo, type EscalationRepo } from '../support/escalation-chart.js';
import { deleteNamespace, freshNamespace, namespaceWithController, testEnv } from '../support/fixtures.js';
import { waitForReadyReason } from '../support/eventually.js';
import { untilAuthorized } from '../support/rbac.js';

/**
 * Issue 33: with no tenancy settings at all, a user who may only create HelmReleases, Secrets and
 * ConfigMaps in one namespace cannot use helmcrew to bind a cluster role, read another
 * namespace's Secret, or make the controller fetch a loopback or link-local URL.
 */
const { env, kubeConfig } = testEnv();

/** A user (impersonated) who may write HelmReleases, Secrets and ConfigMaps in `namespace`, nothing else. */
async function tenantOf(namespace: string): Promise<KubeConfig> {
  const rbac = kubeConfig.makeApiClient(RbacAuthorizationV1Api);
  const user = `tenant-${namespace}`;
  const verbs = ['get', 'list', 'watch', 'create', 'update', 'patch'];
  await rbac.createNamespacedRole({
    namespace,
    body: {
      metadata: { name: 'tenant' },
      rules: [
        { apiGroups: ['helmcrew.dev'], resources: ['helmreleases'], verbs },
        { apiGroups: [''], resources: ['secrets', 'configmaps'], verbs },
      ],
    },
  });
  await rbac.createNamespacedRoleBinding({
    namespace,
    body: {
      metadata: { name: 'tenant' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'tenant' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
    },
  });
  const granted = [
    { group: 'helmcrew.dev', resource: 'helmreleases' },
    { group: '', resource: 'secrets' },
    { group: '', resource: 'configmaps' },
  ];
  for (const { group, resource } of granted) await untilAuthorized(kubeConfig, { user, namespace, group, resource, verb: 'create' });
  return impersonatingConfig(kubeConfig, user);
}

describe('safe defaults: identity and references (no tenancy settings)', () => {
  // Only the test environment's loopback chart servers are named; no tenancy setting is.
  const { namespace, ctl } = namespaceWithController('safe', { HELMCREW_ALLOWED_REPOSITORY_HOSTS: '127.0.0.1' }, undefined, { safeDefaults: true });
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const rbac = kubeConfig.makeApiClient(RbacAuthorizationV1Api);
  let victim: string;
  let repo: EscalationRepo;
  let tenant: KubeConfig;

  beforeAll(async () => {
    victim = await freshNamespace(kubeConfig, 'victim');
    await core.createNamespacedSecret({ namespace: victim, body: { metadata: { name: 'db' }, stringData: { password: 'hunter2-s3cret' } } });
    repo = await startEscalationRepo(env.helmBin);
    tenant = await tenantOf(namespace);
  });
  afterAll(async () => {
    await repo?.close();
    if (victim) await deleteNamespace(kubeConfig, victim);
  });

  it('a plain chart installs as helmcrew-release, which the controller set up as admin of this namespace only', async () => {
    const chart = { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' };
    const release = await waitForReconciled(kubeConfig, namespace, 'shop', await applyHelmRelease(tenant, helmReleaseObject(namespace, 'shop', { chart })));
    expect(release.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True', reason: 'InstallSucceeded' });
    const install = (await ctl.helm.invocations()).find((args) => args[0] === 'install' && args[1] === 'shop');
    expect(install).toEqual(expect.arrayContaining(['--kube-as-user', `system:serviceaccount:${namespace}:helmcrew-release`]));
    const binding = await rbac.readNamespacedRoleBinding({ namespace, name: 'helmcrew-release' });
    expect(binding.roleRef).toMatchObject({ kind: 'ClusterRole', name: 'admin' });
    expect(binding.subjects).toEqual([expect.objectContaining({ kind: 'ServiceAccount', name: 'helmcrew-release', namespace })]);
  });

  it('(a) a chart binding a cluster role is refused: IdentityForbidden names the identity and the request, no binding exists', async () => {
    await applyHelmRelease(tenant, helmReleaseObject(namespace, 'escalate', { chart: { repository: repo.url, ...ESCALATION_CHART } }));
    const { ready } = await waitForReadyReason(kubeConfig, namespace, 'escalate', 'IdentityForbidden');
    expect(ready.status).toBe('False');
    expect(ready.message).toBe(
      `Install of ${ESCALATION_CHART.name}@${ESCALATION_CHART.version} was refused: ServiceAccount ${namespace}/helmcrew-release (helmcrew's, admin of ${namespace} only) may not get clusterrolebindings.rbac.authorization.k8s.io at the cluster scope. A chart with cluster-wide objects or objects in other namespaces needs an identity granted them: spec.serviceAccountName, or this namespace in HELMCREW_CLUSTER_SCOPE_NAMESPACES (the operator's)`,
    );
    const created = await rbac
      .readClusterRoleBinding({ name: `${namespace}-escalate-escalate` })
      .catch((e: unknown) => (isNotFound(e) ? undefined : Promise.reject(e instanceof Error ? e : new Error(String(e)))));
    expect(created).toBeUndefined();
  });

  it("(b) another namespace's Secret is not read: not by a chart's lookup, not by valuesFrom", async () => {
    const secret = { namespace: victim, name: 'db' };
    await applyHelmRelease(tenant, helmReleaseObject(namespace, 'peek', { chart: { repository: repo.url, ...PEEK_CHART }, values: { secret } }));
    const { ready } = await waitForReadyReason(kubeConfig, namespace, 'peek', 'IdentityForbidden');
    expect(ready.message).toMatch(new RegExp(`helmcrew-release .* may not get secrets in namespace ${victim}\\.`));
    const copied = await core
      .readNamespacedConfigMap({ namespace, name: 'peek-peek' })
      .catch((e: unknown) => (isNotFound(e) ? undefined : Promise.reject(e as Error)));
    expect(copied).toBeUndefined();

    // valuesFrom has no namespace: one written anyway is not kept, and the Secret is looked for here.
    const peekValues = helmReleaseObject(namespace, 'peek-values', { chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' } });
    (peekValues.spec as Record<string, unknown>).valuesFrom = [{ kind: 'Secret', name: 'db', namespace: victim, valuesKey: 'password' }];
    await applyHelmRelease(tenant, peekValues);
    const values = await waitForReadyReason(kubeConfig, namespace, 'peek-values', 'ValuesInvalid');
    expect(values.ready.message).toMatch(new RegExp(`Secret ${namespace}/db`));
    expect(JSON.stringify(values.status)).not.toMatch(/hunter2/);
  });

  it('a dependsOn across namespaces is refused, naming the setting', async () => {
    const chart = { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' };
    await applyHelmRelease(tenant, helmReleaseObject(namespace, 'waits', { chart, dependsOn: [{ name: 'mesh', namespace: victim }] }));
    const { ready } = await waitForReadyReason(kubeConfig, namespace, 'waits', 'TargetNamespaceRefused');
    expect(ready.message).toBe(
      `dependsOn ${victim}/mesh is in another namespace than this HelmRelease's (${namespace}); this controller refuses references across namespaces (HELMCREW_ALLOW_CROSS_NAMESPACE_TARGETS=false)`,
    );
  });
});

describe('safe defaults: repository hosts (no settings at all)', () => {
  const { namespace, ctl } = namespaceWithController('safe-hosts', {}, undefined, { safeDefaults: true });
  let tenant: KubeConfig;
  beforeAll(async () => {
    tenant = await tenantOf(namespace);
  });
  const port = new URL(env.chartRepoUrl).port;
  const setting = 'HELMCREW_ALLOWED_REPOSITORY_HOSTS (chart value repositories.allowedHosts) allows it';

  it.each([
    {
      name: 'by-name',
      repository: `http://localhost:${port}`,
      why: /localhost resolves to the loopback address (127\.0\.0\.1|::1), refused unless listed by exact name or address/,
    },
    { name: 'by-address', repository: `http://127.0.0.1:${port}`, why: /127\.0\.0\.1 is the loopback address 127\.0\.0\.1/ },
    // 169.254.169.254 as one number: past the API server's check of the literal, refused by the controller.
    {
      name: 'metadata',
      repository: 'http://2852039166/latest',
      why: /169\.254\.169\.254 is the link-local address 169\.254\.169\.254 \(cloud metadata services live there\)/,
    },
  ])('(c) $repository is refused, naming the host and the setting; nothing is fetched', async ({ name, repository, why }) => {
    await applyHelmRelease(tenant, helmReleaseObject(namespace, name, { chart: { repository, name: 'unicorn', version: '1.0.0' } }));
    const { ready } = await waitForReadyReason(kubeConfig, namespace, name, 'RepositoryNotAllowed');
    expect(ready.message).toMatch(why);
    expect(ready.message.endsWith(setting)).toBe(true);
    expect(await ctl.helm.count('install')).toBe(0);
  });
});
