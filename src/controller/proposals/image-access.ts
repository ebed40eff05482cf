import type { HelmRelease, ImageUpdate } from '../../api/helmrelease.js';
import { releaseTarget } from '../../core/release/release-target.js';
import type { TenancyPolicy } from '../../core/release/tenancy-policy.js';
import type { IdentityClients } from '../../core/kube/identity.js';
import type { ChartAccess } from '../charts/chart-access.js';
import { readChartAccess } from '../reconcile/desired/chart-access-reader.js';
import { serviceAccountUser } from '../reconcile/decide/tenancy.js';
import type { KubeReads } from '../reconcile/ports/context.js';

export interface ReleaseReadsDeps {
  kube: KubeReads;
  identities: IdentityClients;
  tenancy: TenancyPolicy;
}

/** The clients a release's image Secrets are read with: its identity's. */
export function readsAsRelease(deps: ReleaseReadsDeps, release: HelmRelease): KubeReads {
  const target = releaseTarget(release, deps.tenancy);
  // A remote target's values sources are read here as the controller (gate.ts actingAs); so are these.
  return target.impersonate && !release.spec.kubeConfig ? deps.identities.forUser(serviceAccountUser(target.impersonate)) : deps.kube;
}

/**
 * An image update's credentials (secretRef: `username` + `password` or `.dockerconfigjson`;
 * certSecretRef: `ca.crt`), read as the release's identity exactly as spec.chart's are
 * (chart-access-reader.ts), so a tenant reaches only Secrets it could read itself.
 */
export function imageAccessReader(deps: ReleaseReadsDeps) {
  return async (release: HelmRelease, update: ImageUpdate): Promise<ChartAccess> => {
    const kube = readsAsRelease(deps, release);
    const chart = {
      name: 'image',
      repository: `oci://${update.repository}`,
      ...(update.insecure ? { insecure: true } : {}),
      ...(update.secretRef ? { secretRef: update.secretRef } : {}),
      ...(update.certSecretRef ? { certSecretRef: update.certSecretRef } : {}),
    };
    try {
      return await readChartAccess(kube, { ...release, spec: { ...release.spec, chart } });
    } catch (error) {
      if (error instanceof Error) error.message = error.message.replaceAll('spec.chart.', `spec.imageUpdates (${update.repository}) `);
      throw error;
    }
  };
}
