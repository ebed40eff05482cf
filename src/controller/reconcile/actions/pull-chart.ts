import type { HelmRelease } from '../../../api/helmrelease.js';
import { ReleaseEvent } from '../../../api/vocabulary.js';
import type { EventDetails } from '../../../core/events/release-event-sink.js';
import { ChartNotFoundError } from '../../charts/repository-errors.js';
import { HelmError } from '../../helm/helm-error.js';
import { retryingStatus } from '../../status/release-status.js';
import { RetryLaterError, type PassContext } from '../ports/context.js';
import type { DesiredRelease } from '../../../core/release/desired-release.js';
import type { ReleaseTarget } from '../../../core/release/release-target.js';
import { chartPullRequest } from '../desired/helm-requests.js';

/** Fetches the chart archive; a failure here is ChartPullFailed, retried with backoff. */
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
