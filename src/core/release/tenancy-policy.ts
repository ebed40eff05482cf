/** Operator lock-down for shared clusters (docs/security.md). */
export interface TenancyPolicy {
  /**
   * ServiceAccount (in each HelmRelease's own namespace) that a HelmRelease acts as when it
   * names none; unset: such a HelmRelease acts with the controller's own rights.
   */
  defaultServiceAccount?: string;
  /** Whether spec.targetNamespace may name another namespace than the HelmRelease's own. */
  allowCrossNamespaceTargets: boolean;
}
