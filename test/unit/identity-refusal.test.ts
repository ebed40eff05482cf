import { describe, expect, it } from 'vitest';
import { HelmError, parseForbidden } from '../../src/controller/helm/helm-error.js';
import { identityRefusalMessage } from '../../src/controller/reconcile/decide/identity-refusal.js';
import { ManagedIdentities, managedIdentityObjects } from '../../src/controller/tenancy/managed-identity.js';
import type { KubeRest, KubeRequest } from '../../src/core/kube/rest-client.js';

const CLUSTER =
  'Error: INSTALLATION FAILED: failed to create resource: clusterrolebindings.rbac.authorization.k8s.io is forbidden: User "system:serviceaccount:team-a:helmcrew-release" cannot create resource "clusterrolebindings" in API group "rbac.authorization.k8s.io" at the cluster scope';
const NAMESPACED =
  'Error: UPGRADE FAILED: configmaps "x" is forbidden: User "system:serviceaccount:team-a:helmcrew-release" cannot get resource "configmaps" in API group "" in the namespace "kube-system"';

describe('an RBAC refusal in helm’s output', () => {
  it.each([
    {
      name: 'a cluster-scoped object',
      stderr: CLUSTER,
      want: { user: 'system:serviceaccount:team-a:helmcrew-release', verb: 'create', resource: 'clusterrolebindings.rbac.authorization.k8s.io' },
    },
    {
      name: 'another namespace, core group',
      stderr: NAMESPACED,
      want: { user: 'system:serviceaccount:team-a:helmcrew-release', verb: 'get', resource: 'configmaps', namespace: 'kube-system' },
    },
    { name: 'any other failure', stderr: 'Error: INSTALLATION FAILED: context deadline exceeded', want: undefined },
  ])('$name', ({ stderr, want }) => {
    expect(parseForbidden(stderr)).toEqual(want);
    expect(new HelmError({ step: 'install', exitCode: 1, stderr, timedOut: false }).forbidden).toEqual(want);
  });

  it('names the identity, the refused request and the one change that allows it', () => {
    const refused = parseForbidden(CLUSTER)!;
    expect(identityRefusalMessage('Install of escalate@1.0.0', { kind: 'managed', namespace: 'team-a', name: 'helmcrew-release' }, refused)).toBe(
      "Install of escalate@1.0.0 was refused: ServiceAccount team-a/helmcrew-release (helmcrew's, admin of team-a only) may not create clusterrolebindings.rbac.authorization.k8s.io at the cluster scope. A chart with cluster-wide objects or objects in other namespaces needs an identity granted them: spec.serviceAccountName, or this namespace in HELMCREW_CLUSTER_SCOPE_NAMESPACES (the operator's)",
    );
    expect(identityRefusalMessage('Upgrade to x@2', { kind: 'named', namespace: 'team-a', name: 'deployer' }, parseForbidden(NAMESPACED)!)).toMatch(
      /^Upgrade to x@2 was refused: ServiceAccount team-a\/deployer \(spec.serviceAccountName\) may not get configmaps in namespace kube-system\. Grant that ServiceAccount/,
    );
  });
});

describe('helmcrew’s managed identity of a namespace', () => {
  it('is a ServiceAccount bound to admin in that namespace only, labelled as helmcrew’s', () => {
    const { serviceAccount, roleBinding } = managedIdentityObjects('team-a');
    expect(serviceAccount.metadata).toMatchObject({ name: 'helmcrew-release', namespace: 'team-a', labels: { 'app.kubernetes.io/managed-by': 'helmcrew' } });
    expect(roleBinding).toMatchObject({
      kind: 'RoleBinding',
      metadata: { name: 'helmcrew-release', namespace: 'team-a' },
      roleRef: { kind: 'ClusterRole', name: 'admin' },
      subjects: [{ kind: 'ServiceAccount', name: 'helmcrew-release', namespace: 'team-a' }],
    });
  });

  it('is applied once per namespace while fresh (concurrent passes share one apply), again after a few minutes, and again after a failure', async () => {
    const requests: KubeRequest[] = [];
    let fail = false;
    const rest = {
      request: async (req: KubeRequest) => {
        requests.push(req);
        if (fail) throw new Error('forbidden');
        return {};
      },
    } as unknown as KubeRest;
    let now = 0;
    const identities = new ManagedIdentities(rest, () => now);
    await Promise.all([identities.ensure('team-a'), identities.ensure('team-a')]);
    expect(requests.map((r) => `${r.method} ${r.path} ${r.contentType}`)).toEqual([
      'PATCH /api/v1/namespaces/team-a/serviceaccounts/helmcrew-release application/apply-patch+yaml',
      'PATCH /apis/rbac.authorization.k8s.io/v1/namespaces/team-a/rolebindings/helmcrew-release application/apply-patch+yaml',
    ]);
    now = 60_000;
    await identities.ensure('team-a');
    expect(requests).toHaveLength(2);
    now = 6 * 60_000;
    fail = true;
    await expect(identities.ensure('team-a')).rejects.toThrow('forbidden');
    fail = false;
    await identities.ensure('team-a');
    expect(requests).toHaveLength(5);
  });
});
