import type { HelmReleaseSpec } from '../../api/helmrelease.js';
import type { CrdsPolicy } from '../../api/post-render.js';

/**
 * What happens to a chart's crds/ folder, by action and policy (Flux's meanings and defaults:
 * install Create, upgrade Skip). Helm itself only creates missing CRDs, and only on install
 * (`--skip-crds` turns that off); everything else is helmcrew's server-side apply before helm. Pure.
 */
export interface CrdStep {
  /** helm install --skip-crds. */
  skipCrdsFlag: boolean;
  /** Applied by helmcrew before helm runs, as the HelmRelease's identity. */
  apply: 'none' | 'create-missing' | 'create-replace';
}

export function crdsPolicy(action: 'install' | 'upgrade', spec: Pick<HelmReleaseSpec, 'install' | 'upgrade'>): CrdsPolicy {
  // install.skipCRDs is Flux's deprecated spelling of crds: Skip; crds wins when both are set.
  if (action === 'install') return spec.install?.crds ?? (spec.install?.skipCRDs === true ? 'Skip' : 'Create');
  return spec.upgrade?.crds ?? 'Skip';
}

export function crdStep(action: 'install' | 'upgrade', policy: CrdsPolicy): CrdStep {
  switch (policy) {
    case 'Skip':
      return { skipCrdsFlag: action === 'install', apply: 'none' };
    case 'Create':
      // helm creates the missing ones on install; on upgrade it never looks at crds/.
      return { skipCrdsFlag: false, apply: action === 'install' ? 'none' : 'create-missing' };
    case 'CreateReplace':
      // Applied first; helm's own install then finds them present and leaves them.
      return { skipCrdsFlag: false, apply: 'create-replace' };
  }
}
