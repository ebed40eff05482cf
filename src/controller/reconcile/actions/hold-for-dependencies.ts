import type { HelmRelease } from '../../../api/helmrelease.js';
import { ReleaseEvent } from '../../../api/vocabulary.js';
import { dependencyInvalidStatus, dependencyProblemRecorded, dependencyWaitedMs, dependencyWaitingStatus } from '../../status/dependency-status.js';
import type { PassContext } from '../ports/context.js';
import { dependencyKeys, dependencyRetryMs, describeVerdict, evaluateDependencies } from '../decide/dependency-decision.js';
import { releaseKey } from '../../../core/release/release-target.js';

/** At most this many HelmReleases are read to follow a dependency chain (and find a cycle). */
const MAX_GRAPH = 200;

export type Hold = { held: false } | { held: true; requeueAfterMs?: number };

/**
 * Holds an install or upgrade until every dependsOn entry is Ready at its current generation.
 * Waiting is requeued with a growing delay (and woken at once by the watch when a dependency
 * becomes Ready); a missing dependency or a cycle is reported and not retried by itself.
 */
export async function holdForDependencies(ctx: PassContext, release: HelmRelease): Promise<Hold> {
  if (!release.spec.dependsOn?.length) return { held: false };
  const graph = await loadGraph(ctx, release);
  const verdict = evaluateDependencies(release, (key) => graph.get(key));
  if (verdict.kind === 'ready') return { held: false };
  const key = releaseKey(release.metadata.namespace, release.metadata.name);
  const message = describeVerdict(verdict);
  const known = dependencyProblemRecorded(release, message);
  const now = ctx.now();
  if (verdict.kind === 'waiting') {
    const requeueAfterMs = dependencyRetryMs(dependencyWaitedMs(release, now));
    // The same problem found again by a later pass writes nothing (issue 9: nothing changed, nothing written).
    await ctx.status.writeIfChanged(release, dependencyWaitingStatus(release, message, now));
    if (!known) await ctx.effects().events.record(release, ReleaseEvent.DependencyNotReady, message);
    ctx.log.info({ release: key, action: 'wait-for-dependencies', waitingFor: verdict.notReady, requeueAfterMs }, 'waiting for dependencies');
    return { held: true, requeueAfterMs };
  }
  await ctx.status.writeIfChanged(release, dependencyInvalidStatus(release, message, now));
  if (!known) {
    await ctx.effects().events.record(release, ReleaseEvent.DependencyNotReady, message);
    ctx.log.warn({ release: key, action: 'wait-for-dependencies', problem: verdict.kind }, message);
  }
  return { held: true };
}

/** Reads the release's dependencies, theirs, and so on (breadth first, bounded). */
async function loadGraph(ctx: PassContext, release: HelmRelease): Promise<Map<string, HelmRelease | undefined>> {
  const graph = new Map<string, HelmRelease | undefined>([[releaseKey(release.metadata.namespace, release.metadata.name), release]]);
  const queue = dependencyKeys(release);
  while (queue.length > 0 && graph.size < MAX_GRAPH) {
    const key = queue.shift()!;
    if (graph.has(key)) continue;
    const [namespace, name] = key.split('/') as [string, string];
    const found = await ctx.api.get(namespace, name);
    graph.set(key, found);
    if (found) queue.push(...dependencyKeys(found));
  }
  return graph;
}
