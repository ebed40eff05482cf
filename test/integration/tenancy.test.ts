import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CoreV1Api, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { isNotFound } from '../../src/core/kube/errors.js';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { applyHelmRelease, helmReleaseObject, servedColor, waitForReconciled } from '../../src/dev/releases.js';
import { ESCALATION_CHART, startEscalationRepo, type EscalationRepo } from '../support/escalation-chart.js';
import { deleteNamespace, freshNamespace, namespaceWithController, testEnv } from '../support/fixtures.js';
import { leavePendingUpgrade } from '../support/pending-release.js';
import { waitForReadyReason } from '../support/eventually.js';

/**
 * Issue 5: under the operator's lock-down a tenant's HelmRelease acts as a ServiceAccount of its
 * own namespace for everything, and stays in that namespace.
 */
describe('tenancy lock-down (default ServiceAccount, no cross-namespace targets)', () => {
  const { env, kubeConfig } = testEnv();
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const rbac = kubeConfig.makeApiClient(RbacAuthorizationV1Api);
  const storage = new ReleaseStorage(makeKubeClients(kubeConfig));
  const { namespace, ctl } = namespaceWithController('tenant', {
    HELMCREW_DEFAULT_SERVICE_ACCOUNT: 'deployer',
    HELMCREW_ALLOW_CROSS_NAMESPACE_TARGETS: 'false',
  });
  let victim: string;
  let escalation: EscalationRepo;
  const chart = { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' };

  const serviceAccountWithRole = async (name: string, rules?: Array<{ apiGroups: string[]; resources: string[]; verbs: string[] }>, clusterRole?: string) => {
    await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
    let roleRef = { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: clusterRole ?? '' };
    if (rules) {
      await rbac.createNamespacedRole({ namespace, body: { metadata: { name }, rules } });
      roleRef = { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name };
    }
    if (rules || clusterRole) {
      await rbac.createNamespacedRoleBinding({ namespace, body: { metadata: { name }, roleRef, subjects: [{ kind: 'ServiceAccount', name, namespace }] } });
    }
  };

  beforeAll(async () => {
    victim = await freshNamespace(kubeConfig, 'victim');
    escalation = await startEscalationRepo(env.helmBin);
    // The tenant's default identity: admin of its own namespace, nothing outside it.
    await serviceAccountWithRole('deployer', undefined, 'admin');
  });
  afterAll(async () => {
    await escalation?.close();
    if (victim) await deleteNamespace(kubeConfig, victim);
  });

  it('a HelmRelease naming no ServiceAccount acts as the default one of its namespace', async () => {
    const generation = await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'shop', { chart }));
    const release = await waitForReconciled(kubeConfig, namespace, 'shop', generation);
    expect(release.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True', reason: 'InstallSucceeded' });
    const install = (await ctl.helm.invocations()).find((args) => args[0] === 'install' && args[1] === 'shop');
    expect(install).toEqual(expect.arrayContaining(['--kube-as-user', `system:serviceaccount:${namespace}:deployer`]));
    expect(await servedColor(kubeConfig, namespace, 'shop')).toBe('pink');
  });

  it('targetNamespace of another namespace is refused; nothing is run or written there', async () => {
    const helmBefore = (await ctl.helm.invocations()).length;
    await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'intruder', { chart, targetNamespace: victim }));
    const refused = await waitForReadyReason(kubeConfig, namespace, 'intruder', 'TargetNamespaceRefused');
    expect(refused.ready).toMatchObject({ status: 'False' });
    expect(refused.ready.message).toMatch(new RegExp(`targetNamespace ${victim} is not this HelmRelease's namespace \\(${namespace}\\)`));
    expect((await ctl.helm.invocations()).length).toBe(helmBefore);
    expect((await storage.history(victim, 'intruder')).releases).toEqual([]);
  });

  it('a chart that would make the tenant cluster-admin (a ClusterRoleBinding) is refused by the API server', async () => {
    const generation = await applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, 'escalate', { chart: { repository: escalation.url, ...ESCALATION_CHART } }),
    );
    const release = await waitForReconciled(kubeConfig, namespace, 'escalate', generation);
    const ready = release.status?.conditions?.find((c) => c.type === 'Ready');
    // Issue 33: the API server's refusal is told as who was refused what, not as helm's error.
    expect(ready).toMatchObject({ status: 'False', reason: 'IdentityForbidden' });
    expect(ready?.message).toMatch(
      new RegExp(`was refused: ServiceAccount ${namespace}/deployer \\(HELMCREW_DEFAULT_SERVICE_ACCOUNT\\) may not (get|create) clusterrolebindings`),
    );
    const binding = await rbac
      .readClusterRoleBinding({ name: `${namespace}-escalate-escalate` })
      .catch((e: unknown) => (isNotFound(e) ? undefined : Promise.reject(e instanceof Error ? e : new Error(String(e)))));
    expect(binding).toBeUndefined();
  });

  it('valuesFrom is read as the identity: a Secret it may not read → ValuesInvalid naming it, never its value', async () => {
    // May list release records (helm's storage) but not get a Secret by name.
    await serviceAccountWithRole('lister', [{ apiGroups: [''], resources: ['secrets'], verbs: ['list'] }]);
    await core.createNamespacedSecret({ namespace, body: { metadata: { name: 'db' }, stringData: { 'values.yaml': 'password: hunter2-s3cret\n' } } });
    const generation = await applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, 'peek', { chart, serviceAccountName: 'lister', valuesFrom: [{ kind: 'Secret', name: 'db' }] }),
    );
    const release = await waitForReconciled(kubeConfig, namespace, 'peek', generation);
    const ready = release.status?.conditions?.find((c) => c.type === 'Ready');
    expect(ready).toMatchObject({ status: 'False', reason: 'ValuesInvalid' });
    expect(ready?.message).toMatch(new RegExp(`Secret ${namespace}/db may not be read: .*forbidden.*system:serviceaccount:${namespace}:lister`));
    expect(JSON.stringify(release.status)).not.toMatch(/hunter2/);
    expect(await ctl.helm.count('install')).toBe(2); // shop and escalate only
  });

  it('release records are read as the identity: one that may not read them → AccessDenied', async () => {
    await serviceAccountWithRole('nobody');
    const generation = await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'blind', { chart, serviceAccountName: 'nobody' }));
    const release = await waitForReconciled(kubeConfig, namespace, 'blind', generation);
    const ready = release.status?.conditions?.find((c) => c.type === 'Ready');
    expect(ready).toMatchObject({ status: 'False', reason: 'AccessDenied' });
    expect(ready?.message).toMatch(new RegExp(`Cannot read the Helm release records of ${namespace}/blind: .*system:serviceaccount:${namespace}:nobody`));
  });

  it('unlocking is done as the identity too: one that may read but not update release records → AccessDenied, the record untouched', async () => {
    await waitForReconciled(
      kubeConfig,
      namespace,
      'frozen',
      await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'frozen', { chart, timeout: '3s' })),
    );
    const pending = await leavePendingUpgrade(kubeConfig, namespace, 'frozen', 1, new Date(Date.now() - 60 * 60_000));
    await serviceAccountWithRole('reader', [{ apiGroups: [''], resources: ['secrets', 'configmaps'], verbs: ['get', 'list'] }]);
    await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'frozen', { chart, timeout: '3s', serviceAccountName: 'reader' }));
    const denied = await waitForReadyReason(kubeConfig, namespace, 'frozen', 'AccessDenied');
    expect(denied.ready.message).toMatch(
      new RegExp(`Revision ${pending} of ${namespace}/frozen is stale pending-upgrade but may not be unlocked: .*system:serviceaccount:${namespace}:reader`),
    );
    expect((await storage.history(namespace, 'frozen')).latest).toMatchObject({ revision: pending, status: 'pending-upgrade' });
  });
});
