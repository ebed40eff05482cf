import type { HelmRelease } from '../../api/helmrelease.js';
import { DIFF_BOUNDS, readableDiff } from '../../core/release/readable-diff.js';
import { PAGED_DIFF_BOUNDS, withinBounds } from '../../core/release/diff-bounds.js';
import { summarizeReadableDiff } from '../../core/release/readable-diff-text.js';
import { releaseTarget } from '../../core/release/release-target.js';
import type { PreviewRequest, PreviewResult } from '../../core/preview/preview-protocol.js';
import type { DesiredRelease } from '../../core/release/desired-release.js';
import { ChartNotFoundError } from '../charts/repository-errors.js';
import { HelmError } from '../helm/helm-error.js';
import type { ControllerContext } from '../reconcile/ports/context.js';
import { resolveDesiredRelease } from '../reconcile/desired/resolve-desired.js';
import { redactSecrets } from '../reconcile/decide/redact.js';
import { priorSecrets } from './prior-secrets.js';
import { chartPullRequest, releaseRequest } from '../reconcile/desired/helm-requests.js';
import { actingAs } from '../reconcile/stages/gate.js';
import { chooseCluster } from '../reconcile/stages/target-cluster.js';
import { checkTenancy } from '../reconcile/decide/tenancy.js';

/**
 * What applying a HelmRelease's spec (or the spec at another chart version) would change, as its
 * identity and without writing: the chart is resolved and pulled as a pass would, rendered by
 * `helm … --dry-run=server`, and compared with the manifest of the deployed revision. Nothing in
 * status, Events or notifications: this answers a question, it is not a pass.
 */
export async function computePreview(controllerCtx: ControllerContext, request: PreviewRequest): Promise<PreviewResult> {
  const found = await controllerCtx.api.get(request.namespace, request.name);
  if (!found) return { ok: false, message: `HelmRelease ${request.namespace}/${request.name} not found` };
  return previewRelease(controllerCtx, withVersion(found, request.version));
}

/**
 * What applying `release` as it stands would change (computePreview), with `adjust` changing the
 * desired release before it is rendered: a proposal's values over it (proposals/proposal-diff.ts).
 */
export async function previewRelease(
  controllerCtx: ControllerContext,
  release: HelmRelease,
  adjust: (desired: DesiredRelease) => DesiredRelease = (desired) => desired,
): Promise<PreviewResult> {
  const key = `${release.metadata.namespace}/${release.metadata.name}`;
  const target = releaseTarget(release, controllerCtx.tenancy);
  const tenancy = checkTenancy(release, target, controllerCtx.tenancy);
  if (!tenancy.allowed) return { ok: false, message: tenancy.message };
  if (target.identity.kind === 'managed') await controllerCtx.managedIdentities?.ensure(target.identity.namespace);
  // spec.kubeConfig: rendered against, and compared with the records of, the target cluster.
  const cluster = await chooseCluster(controllerCtx, release);
  if (cluster.kind === 'refused') return { ok: false, message: cluster.message };
  const ctx = actingAs(controllerCtx, target, cluster.kind === 'remote' ? cluster.ports : undefined);
  const history = await ctx.storage.history(target.namespace, target.releaseName);
  const deployed = history.deployed;
  // As a pass resolves it: with approvals asked, a range holds to the version deployed (issue 35).
  const resolved = await resolveDesiredRelease(ctx, release, deployed?.chartVersion);
  if (!resolved.ok) return { ok: false, message: resolved.message };
  const desired = adjust(resolved.desired);
  const redact = (text: string) => redactSecrets(text, desired.secrets);
  // The diff shows values: the deployed revision's earlier Secret values are hidden too.
  const secrets = [...desired.secrets.list(), ...priorSecrets(deployed?.config, desired.values, (text) => redact(text) !== text)];
  const redactBoth = (text: string) => redactSecrets(text, secrets);
  try {
    const chartPath = await ctx.helm.pullChart(chartPullRequest(ctx, release, target, desired));
    const request = releaseRequest(release, target, desired, chartPath, deployed ? 'upgrade' : 'install');
    const manifest = await ctx.helm.renderDryRun(request, deployed ? 'upgrade' : 'install');
    // Values from Secrets are hidden wherever the chart put them, on both sides of a change.
    // Bounded loosely for the web's pages; chat's summary is the same diff within DIFF_BOUNDS (diff-bounds.ts).
    const diff = readableDiff(deployed?.manifest ?? '', manifest, { redact: redactBoth, limits: PAGED_DIFF_BOUNDS });
    const summary = summarizeReadableDiff(withinBounds(diff, DIFF_BOUNDS));
    return {
      ok: true,
      from: deployed ? `revision ${deployed.revision} (${deployed.chartName} ${deployed.chartVersion})` : 'nothing deployed',
      to: `${desired.chartName} ${desired.chartVersion}`,
      lines: summary.lines.map(redactBoth),
      rest: summary.rest.map(redactBoth),
      diff,
    };
  } catch (error) {
    if (error instanceof ChartNotFoundError) return { ok: false, message: error.message };
    if (!(error instanceof HelmError)) throw error;
    // helm's own words stay in the controller's log (they can quote values and network errors).
    ctx.log.warn({ release: key, action: 'dry-run', error: redact(error.stderrExcerpt) }, 'preview: helm could not render the release');
    return { ok: false, message: `helm could not render ${desired.chartName} ${desired.chartVersion} for ${key}; the controller's log has helm's output` };
  }
}

function withVersion(release: HelmRelease, version: string | undefined): HelmRelease {
  if (!version) return release;
  return { ...release, spec: { ...release.spec, chart: { ...release.spec.chart, version } } };
}
