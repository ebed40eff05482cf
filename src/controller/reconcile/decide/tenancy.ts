import type { HelmRelease } from '../../../api/helmrelease.js';
import type { TenancyPolicy } from '../../../core/release/tenancy-policy.js';
import type { ReleaseTarget } from '../../../core/release/release-target.js';

/**
 * The operator's lock-down, decided before anything is read or run for a HelmRelease. Pure.
 * Cluster-scoped objects and other namespaces are kept out by impersonation (the API server
 * refuses what the ServiceAccount may not do); this refuses what impersonation cannot see: a
 * HelmRelease pointing helm at another namespace, or waiting on (and so reading the state of) a
 * release in another namespace. valuesFrom and chart secretRefs name objects of the HelmRelease's
 * own namespace only (the API has no namespace field for them).
 */
export type TenancyVerdict = { allowed: true } | { allowed: false; message: string };

export function checkTenancy(release: HelmRelease, target: ReleaseTarget, policy: TenancyPolicy): TenancyVerdict {
  const own = release.metadata.namespace;
  if (!policy.allowCrossNamespaceTargets && target.namespace !== own) {
    return {
      allowed: false,
      message: `targetNamespace ${target.namespace} is not this HelmRelease's namespace (${own}); this controller only installs a release into its HelmRelease's own namespace (HELMCREW_ALLOW_CROSS_NAMESPACE_TARGETS=false)`,
    };
  }
  // Only what would install or upgrade needs the dependency: a HelmRelease being deleted is
  // uninstalled whatever it waited for.
  const across = release.metadata.deletionTimestamp ? undefined : release.spec.dependsOn?.find((d) => d.namespace !== undefined && d.namespace !== own);
  if (!policy.allowCrossNamespaceTargets && across) {
    return {
      allowed: false,
      message: `dependsOn ${across.namespace}/${across.name} is in another namespace than this HelmRelease's (${own}); this controller refuses references across namespaces (HELMCREW_ALLOW_CROSS_NAMESPACE_TARGETS=false)`,
    };
  }
  return { allowed: true };
}

/** The Kubernetes user name helm and the API clients impersonate. */
export function serviceAccountUser(sa: { namespace: string; name: string }): string {
  return `system:serviceaccount:${sa.namespace}:${sa.name}`;
}
