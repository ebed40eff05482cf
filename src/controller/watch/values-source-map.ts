import type { HelmRelease } from '../../api/helmrelease.js';
import { releaseKey } from '../../core/release/release-target.js';

/**
 * Pure: which HelmReleases read this ConfigMap or Secret (same namespace): as values (valuesFrom),
 * or, a Secret, as chart credentials (spec.chart.secretRef, certSecretRef) or a target cluster's
 * kubeconfig (spec.kubeConfig) or SOPS keys (spec.decryption), so a password fixed after a ChartPullFailed, or a rotated
 * kubeconfig, is tried within seconds, not at the next interval.
 */
export function releasesUsingValuesSource(kind: 'ConfigMap' | 'Secret', namespace: string, name: string, releases: HelmRelease[]): string[] {
  const uses = (r: HelmRelease) =>
    (r.spec?.valuesFrom ?? []).some((ref) => ref.kind === kind && ref.name === name) ||
    (kind === 'Secret' &&
      (r.spec?.chart?.secretRef?.name === name ||
        r.spec?.chart?.certSecretRef?.name === name ||
        r.spec?.kubeConfig?.secretRef?.name === name ||
        r.spec?.decryption?.secretRef?.name === name ||
        // A key Secret (spec.chart.verify, git.verify) fixed after a VerificationFailed is checked again at once.
        r.spec?.chart?.verify?.secretRef?.name === name ||
        r.spec?.chart?.git?.verify?.secretRef.name === name));
  return releases.filter((r) => r.metadata.namespace === namespace && uses(r)).map((r) => releaseKey(r.metadata.namespace, r.metadata.name));
}

/**
 * Pure: does this event of a watched ConfigMap/Secret mean its users should be reconciled? The
 * informer's first list reports everything as added, which says nothing new; later adds (a
 * source created after its HelmRelease), changes of the content (resourceVersion) and deletes do.
 */
export function valuesSourceChanged(
  event: 'add' | 'update' | 'delete',
  synced: boolean,
  previousVersion: string | undefined,
  version: string | undefined,
): boolean {
  if (event === 'delete') return true;
  if (event === 'add') return synced;
  return previousVersion !== version;
}
