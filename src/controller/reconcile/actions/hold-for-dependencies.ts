import type { HelmRelease } from '../../../api/helmrelease.js';
import { ReleaseEvent, StateReason } from '../../../api/vocabulary.js';
import { dependencyInvalidStatus, dependencyProblemRecorded, dependencyWaitedMs, dependencyWaitingStatus } from '../../status/dependency-status.js';
import type { PassContext } from '../ports/context.js';
import { dependencyKeys, dependencyRetryMs, describeVerdict, evaluateDependencies } from '../decide/dependency-decision.js';
import { dependencyTargets, type DependencyTarget } from '../decide/dependency-objects.js';
import type { ObjectFound } from '../../../core/kube/object-reader.js';
import { releaseKey } from '../../../core/release/release-target.js';

/** At most this many HelmReleases are read to follow a dependency chain (and find a cycle). */
const MAX_GRAPH = 200;

export type Hold = { held: false } | { held: true; requeueAfterMs?: number };

/**
 * Holds an install or upgrade until every dependsOn entry is Ready at its current generation (or
 * its readyExpr holds; an object of another kind: exists, or is ready). Waiting is requeued with
 * a growing delay (and woken at once by the watch when a HelmRelease dependency becomes Ready;
 * other kinds are not watched: the delay looks again); a missing HelmRelease, a cycle or a
 * readyExpr that does not compile is reported and not retried by itself.
 */
export async function holdForDependencies(ctx: PassContext, release: HelmRelease): Promise<Hold> {
  if (!release.spec.dependsOn?.length) return { held: false };
  const [graph, objects] = await Promise.all([loadGraph(ctx, release), readObjects(ctx, release)]);
  const verdict = evaluateDependencies(
    release,
    (key) => graph.get(key),
    (target) => objects.get(target.index),
  );
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
  const reason = verdict.kind === 'invalid-expression' ? ReleaseEvent.InvalidCELExpression : StateReason.DependencyInvalid;
  await ctx.status.writeIfChanged(release, dependencyInvalidStatus(release, message, now, reason));
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

/** The dependencies of other kinds than HelmRelease, read as the release's identity, by their place in dependsOn. */
async function readObjects(ctx: PassContext, release: HelmRelease): Promise<Map<number, ObjectFound>> {
  const others = dependencyTargets(release).filter((t) => !t.isRelease);
  const read = async (t: DependencyTarget): Promise<[number, ObjectFound]> => [
    t.index,
    ctx.objects ? await ctx.objects.read(t) : { kind: 'unreadable', message: 'this controller reads no objects but HelmReleases' },
  ];
  return new Map(await Promise.all(others.map(read)));
}
