import type { HelmRelease } from '../../../api/helmrelease.js';
import type { ReleaseTarget } from '../../../core/release/release-target.js';
import { chartCrds } from '../../crds/crd-applier.js';
import { crdsPolicy, crdStep } from '../../crds/crd-policy.js';
import type { ReleaseRequest } from '../../helm/helm-client.js';
import type { PassContext } from '../ports/context.js';
import { serviceAccountUser } from '../decide/tenancy.js';

/**
 * install/upgrade.crds before helm runs: the chart's CRDs (`helm show crds`) created or updated
 * as the HelmRelease's identity when the policy asks helmcrew to (crd-policy.ts). A refusal is a
 * CrdPolicyError, so the attempt fails naming the CRD and helm never runs.
 */
export async function applyChartCrds(
  ctx: PassContext,
  release: HelmRelease,
  target: ReleaseTarget,
  request: ReleaseRequest,
  action: 'install' | 'upgrade',
): Promise<void> {
  const policy = crdsPolicy(action, release.spec);
  const step = crdStep(action, policy);
  const { crds: applier } = ctx.effects();
  if (step.apply === 'none' || !applier) return;
  const crds = chartCrds(await ctx.effects().helm.showCrds({ key: target.key, chartPath: request.chartPath }));
  const user = target.impersonate ? serviceAccountUser(target.impersonate) : undefined;
  const applied = await applier.apply(crds, step.apply, { ...(user ? { user } : {}), helmStep: action, policy: `${action}.crds ${policy}` });
  if (applied.length > 0) ctx.log.info({ release: target.key, action: `${action}-crds`, crds: applied }, 'chart CRDs applied');
}
