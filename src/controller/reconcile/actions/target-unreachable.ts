import type { HelmRelease } from '../../../api/helmrelease.js';
import { ConditionType, ReleaseEvent } from '../../../api/vocabulary.js';
import { apiStatusCode, unreachableReason } from '../../../core/kube/errors.js';
import { findCondition } from '../../status/conditions.js';
import { retryingStatus } from '../../status/release-status.js';
import type { ClusterPorts, PassContext } from '../ports/context.js';
import { done, type PassEnd } from '../ports/pass.js';
import { reportRefused } from './refuse.js';

/**
 * A remote target (spec.kubeConfig) that failed a pass's first request to it. Unreachable: Ready=False
 * TargetUnreachable naming the server, and the release is tried again after the operator's
 * interval, not by a fast backoff (an unreachable cluster rarely comes back in seconds, and its
 * releases must not crowd the queue). Credentials it refused: KubeConfigInvalid until the Secret
 * changes. Anything else: undefined, for the caller to handle.
 */
export async function targetProblem(ctx: PassContext, release: HelmRelease, key: string, cluster: ClusterPorts, error: unknown): Promise<PassEnd | undefined> {
  const unreachable = unreachableReason(error);
  if (unreachable) {
    // The socket's own words (refused, timed out, untrusted certificate) stay in the controller's
    // log: in status they would let a HelmRelease probe the network through the controller.
    ctx.log.warn({ release: key, action: 'target', cluster: cluster.name, error: unreachable }, 'target cluster unreachable');
    const message = `Target ${cluster.name} is unreachable (no connection within the time allowed, or it was refused or not trusted); the controller's log says why. Trying again in ${Math.round(cluster.retryAfterMs / 1000)}s`;
    const ready = findCondition(release.status?.conditions, ConditionType.Ready);
    // The same outage seen again writes nothing and records no new Event.
    if (ready?.reason !== ReleaseEvent.TargetUnreachable || ready.message !== message) {
      await ctx.status.write(release, retryingStatus(release, ReleaseEvent.TargetUnreachable, message, ctx.now()));
      await ctx.effects().events.record(release, ReleaseEvent.TargetUnreachable, message);
    }
    return done(key, 'target-unreachable', cluster.retryAfterMs);
  }
  if (apiStatusCode(error) === 401) {
    await reportRefused(
      ctx,
      release,
      ReleaseEvent.KubeConfigInvalid,
      `spec.kubeConfig: ${cluster.name} did not accept the kubeconfig's credentials (401 Unauthorized)`,
    );
    return done(key, 'refused');
  }
  return undefined;
}
