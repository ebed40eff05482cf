import type { HelmRelease } from '../../../api/helmrelease.js';
import type { HelmReleaseStatus } from '../../../api/helmrelease-status.js';
import { ReleaseEvent } from '../../../api/vocabulary.js';
import type { ChartRequest, ReleaseRequest } from '../../helm/helm-client.js';
import type { EventDetails } from '../../../core/events/release-event-sink.js';
import { ChartNotFoundError } from '../../charts/repository-errors.js';
import { HelmError } from '../../helm/helm-error.js';
import { retryingStatus, supersededStatus } from '../../status/release-status.js';
import { RetryLaterError, type PassContext, type ReconcileContext } from '../context.js';
import { redactSecrets } from '../redact.js';
import type { DesiredRelease } from '../../../core/release/desired-release.js';
import { releaseLabels } from '../ownership.js';
import { crdsPolicy, crdStep } from '../../crds/crd-policy.js';
import type { ReleaseTarget } from '../../../core/release/release-target.js';
import { installFlags, uninstallFlags, upgradeFlags } from '../../helm/helm-flags.js';

/** Fetches the chart archive; a failure here is ChartPullFailed, retried with backoff. */
/** What helm pull is given for the desired chart: its digest, source and credentials as resolved. */
export function chartPullRequest(
  ctx: { charts: Pick<ReconcileContext['charts'], 'downloadArchive'> },
  release: HelmRelease,
  target: ReleaseTarget,
  desired: DesiredRelease,
): ChartRequest {
  const source = desired.chartSource;
  const repository = source?.repository ?? release.spec.chart.repository ?? '';
  const access = source?.access;
  // helm takes credentials for an http(s) chart only beside a cached index: the controller fetches those archives itself.
  const ownDownload = !!source?.archiveUrl && !!access && (!!access.secret || !!access.certSecret);
  return {
    key: target.key,
    repository,
    name: desired.chartName,
    version: desired.chartVersion,
    timeoutSeconds: Math.min(target.timeoutSeconds, 120),
    ...(desired.chartDigest ? { digest: desired.chartDigest } : {}),
    ...(source ? { source } : {}),
    ...(ownDownload ? { download: () => ctx.charts.downloadArchive(source.archiveUrl!, repository, access) } : {}),
    redact: (text) => redactSecrets(text, desired.secrets),
  };
}

export async function pullChart(ctx: PassContext, release: HelmRelease, target: ReleaseTarget, desired: DesiredRelease): Promise<string> {
  const repository = desired.chartSource?.repository ?? release.spec.chart.repository ?? '';
  const access = desired.chartSource?.access;
  try {
    return await ctx.helm.pullChart(chartPullRequest(ctx, release, target, desired));
  } catch (error) {
    if (error instanceof ChartNotFoundError) {
      await reportRetrying(ctx, release, ReleaseEvent.ChartPullFailed, error.message, { toVersion: desired.chartVersion });
      throw new RetryLaterError(error.message);
    }
    if (!(error instanceof HelmError)) throw error;
    // helm's words stay in the controller's log: they quote socket errors ("connection refused"
    // vs a timeout), which would let a HelmRelease probe the network through the controller.
    ctx.log.warn({ release: target.key, action: 'pull', error: error.stderrExcerpt, timedOut: error.timedOut }, 'helm pull failed');
    const secret = access?.secret ? ` (credentials from Secret ${access.secret})` : '';
    const message = `Could not fetch chart ${desired.chartName}@${desired.chartVersion} from ${repository}${secret}${error.timedOut ? ' (timed out)' : ''}; the controller's log has helm's output`;
    await reportRetrying(ctx, release, ReleaseEvent.ChartPullFailed, message, { toVersion: desired.chartVersion });
    throw new RetryLaterError(message);
  }
}

export async function reportRetrying(ctx: PassContext, release: HelmRelease, event: ReleaseEvent, message: string, details?: EventDetails): Promise<void> {
  await ctx.status.write(release, retryingStatus(release, event, message, ctx.now()));
  await ctx.effects().events.record(release, event, message, details);
}

export function releaseRequest(
  release: HelmRelease,
  target: ReleaseTarget,
  desired: DesiredRelease,
  chartPath: string,
  op: 'install' | 'upgrade',
  /** How the release's newest revision was applied (ssa/csa): what upgradeServerSideApply "auto" follows. */
  lastApplyMethod?: string,
): ReleaseRequest {
  const options = target.actions[op];
  return {
    key: target.key,
    releaseName: target.releaseName,
    namespace: target.namespace,
    chartPath,
    values: desired.values,
    timeoutSeconds: options.timeoutSeconds,
    createNamespace: target.createNamespace,
    actionFlags: op === 'install' ? installFlags(target.actions.install) : upgradeFlags(target.actions.upgrade, lastApplyMethod),
    maxHistory: target.maxHistory,
    description: `helmcrew: ${target.key} generation ${release.metadata.generation}`,
    labels: releaseLabels(release, options.timeoutSeconds, desired.chartDigest, desired.postRenderDigest),
    ...(desired.postRender ? { postRender: desired.postRender } : {}),
    skipCrds: crdStep(op, crdsPolicy(op, release.spec)).skipCrdsFlag,
    impersonate: target.impersonate,
    redact: (text) => redactSecrets(text, desired.secrets),
  };
}

/**
 * helm uninstall of the release: on deletion with uninstall's options; to remediate or before a
 * reinstall always without --keep-history (helm cannot install again over kept records).
 */
export function uninstallRequest(target: ReleaseTarget, purpose: 'delete' | 'remediate') {
  const options = purpose === 'delete' ? target.actions.uninstall : { ...target.actions.uninstall, keepHistory: false };
  return {
    key: target.key,
    releaseName: target.releaseName,
    namespace: target.namespace,
    timeoutSeconds: options.timeoutSeconds,
    flags: uninstallFlags(options),
    impersonate: target.impersonate,
  };
}

/** How an install or upgrade went; `failed` means a remediation or retry follows. */
export type AttemptOutcome = 'succeeded' | 'failed' | 'failed-final' | 'superseded';

/**
 * Starts one helm install or upgrade that a newer generation may cancel (RunningOperations):
 * writes the "attempt started" status first (the record a restart needs; helm never runs without
 * it), then runs helm while the "started" Event goes out. The operation is registered before the
 * status write, so a newer generation is seen either in the write's answer or by the watch.
 */
export async function attemptSupersedable<T>(
  ctx: PassContext,
  release: HelmRelease,
  target: ReleaseTarget,
  attempt: { started: HelmReleaseStatus; announce: () => Promise<void> },
  run: (signal?: AbortSignal) => Promise<T>,
): Promise<T> {
  const operation = ctx.operations?.begin(target.key, release.metadata.generation);
  let announced: Promise<void> | undefined;
  try {
    const written = await ctx.status.write(release, attempt.started);
    if (operation) ctx.operations!.supersede(target.key, written.metadata.generation);
    // Sinks never throw; awaited below so the outcome is always told after the start.
    announced = attempt.announce();
    return await run(operation?.signal);
  } finally {
    operation?.end();
    await announced;
  }
}

/** The operation was cancelled for a newer generation: recorded, not a failure; the next pass applies the new spec. */
export async function reportSuperseded(ctx: PassContext, release: HelmRelease, what: string): Promise<AttemptOutcome> {
  const message = `${what} for generation ${release.metadata.generation} was cancelled: a newer generation supersedes it`;
  ctx.log.info({ release: `${release.metadata.namespace}/${release.metadata.name}`, action: 'supersede' }, message);
  await ctx.status.write(release, supersededStatus(release, message, ctx.now()));
  return 'superseded';
}
