import type { HelmRelease } from '../../api/helmrelease.js';
import { MANAGED_SERVICE_ACCOUNT, type TenancyPolicy } from './tenancy-policy.js';

/**
 * Who a HelmRelease acts as, for helm, its values sources and its release records. Pure.
 *  - `named`: its own spec.serviceAccountName;
 *  - `controller`: the controller's rights, only in a namespace the operator grants cluster scope;
 *  - `operator-default`: the operator's HELMCREW_DEFAULT_SERVICE_ACCOUNT of its namespace;
 *  - `managed`: helmcrew's own ServiceAccount of its namespace, admin there and nowhere else,
 *    which the controller creates before acting (the default: safe with no configuration);
 *  - `kubeconfig`: another cluster's (spec.kubeConfig), as the credentials of that kubeconfig,
 *    which its author supplied: they reach no further than the Secret does (as in Flux).
 */
export type ReleaseIdentity =
  | { kind: 'named'; namespace: string; name: string }
  | { kind: 'controller' }
  | { kind: 'operator-default'; namespace: string; name: string }
  | { kind: 'managed'; namespace: string; name: string }
  | { kind: 'kubeconfig' };

export function releaseIdentity(release: Pick<HelmRelease, 'metadata' | 'spec'>, policy: TenancyPolicy): ReleaseIdentity {
  const namespace = release.metadata.namespace;
  if (release.spec.serviceAccountName) return { kind: 'named', namespace, name: release.spec.serviceAccountName };
  // helmcrew's own ServiceAccount is this cluster's: in another one, the kubeconfig's credentials act.
  if (release.spec.kubeConfig) return { kind: 'kubeconfig' };
  if (hasClusterScope(policy, namespace)) return { kind: 'controller' };
  if (policy.defaultServiceAccount) return { kind: 'operator-default', namespace, name: policy.defaultServiceAccount };
  return { kind: 'managed', namespace, name: MANAGED_SERVICE_ACCOUNT };
}

export function hasClusterScope(policy: TenancyPolicy, namespace: string): boolean {
  const granted = policy.clusterScopeNamespaces ?? [];
  return granted.includes('*') || granted.includes(namespace);
}

/** The ServiceAccount an identity impersonates; undefined: the controller itself. */
export function impersonatedAccount(identity: ReleaseIdentity): { namespace: string; name: string } | undefined {
  return identity.kind === 'controller' || identity.kind === 'kubeconfig' ? undefined : { namespace: identity.namespace, name: identity.name };
}

/** How status and logs name the identity. */
export function describeIdentity(identity: ReleaseIdentity): string {
  switch (identity.kind) {
    case 'controller':
      return "the controller's own rights (HELMCREW_CLUSTER_SCOPE_NAMESPACES)";
    case 'named':
      return `ServiceAccount ${identity.namespace}/${identity.name} (spec.serviceAccountName)`;
    case 'operator-default':
      return `ServiceAccount ${identity.namespace}/${identity.name} (HELMCREW_DEFAULT_SERVICE_ACCOUNT)`;
    case 'managed':
      return `ServiceAccount ${identity.namespace}/${identity.name} (helmcrew's, admin of ${identity.namespace} only)`;
    case 'kubeconfig':
      return 'the credentials of spec.kubeConfig, in its cluster';
  }
}
