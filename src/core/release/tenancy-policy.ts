/** Operator tenancy settings (docs/security.md): who a HelmRelease acts as, and where it may reach. */
export interface TenancyPolicy {
  /**
   * ServiceAccount (in each HelmRelease's own namespace) that a HelmRelease acts as when it
   * names none; unset: helmcrew's own managed one (MANAGED_SERVICE_ACCOUNT), admin of that namespace.
   */
  defaultServiceAccount?: string;
  /**
   * Namespaces whose HelmReleases naming no ServiceAccount act with the controller's own rights
   * (cluster-wide charts: CRDs, cert-manager, ingress); `*` is every namespace (the old default).
   */
  clusterScopeNamespaces?: readonly string[];
  /** Whether a HelmRelease may reach another namespace: spec.targetNamespace and dependsOn. */
  allowCrossNamespaceTargets: boolean;
}

/** The ServiceAccount helmcrew keeps in each namespace it reconciles a release in, bound to `admin` there. */
export const MANAGED_SERVICE_ACCOUNT = 'helmcrew-release';
