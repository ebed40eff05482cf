import type { HelmRelease } from '../../../api/helmrelease.js';
import { releaseKey } from '../../../core/release/release-target.js';
import {
  dependencyNotReady,
  dependencyTargets,
  describeTarget,
  isReleaseDependency,
  readyExprProblems,
  type DependencyTarget,
  type ObjectFound,
} from './dependency-objects.js';

/**
 * Pure decisions about spec.dependsOn: is every dependency Ready at its current generation,
 * is one missing, do they form a cycle, and which releases wait on a given one.
 */

/** The HelmReleases this one depends on (the graph of cycles and wake-ups; other kinds are not in it). */
export function dependencyKeys(release: HelmRelease): string[] {
  return (release.spec?.dependsOn ?? []).filter(isReleaseDependency).map((d) => releaseKey(d.namespace ?? release.metadata.namespace, d.name));
}

/**
 * `notReady`: HelmReleases not Ready at their generation (the plain case, named by key);
 * `details`: every other dependency not ready yet, each naming the object and why.
 */
export type DependencyVerdict =
  | { kind: 'ready' }
  | { kind: 'waiting'; notReady: string[]; details?: string[] }
  | { kind: 'missing'; missing: string[] }
  | { kind: 'cycle'; cycle: string[] }
  | { kind: 'invalid-expression'; problems: string[] };

export type ReleaseLookup = (key: string) => HelmRelease | undefined;

/** Dependencies of other kinds, as read for this pass (by their place in spec.dependsOn). */
export type ObjectLookup = (target: DependencyTarget) => ObjectFound | undefined;

export function evaluateDependencies(release: HelmRelease, lookup: ReleaseLookup, objects: ObjectLookup = () => undefined): DependencyVerdict {
  const self = releaseKey(release.metadata.namespace, release.metadata.name);
  const cycle = findCycle(self, lookup, release);
  if (cycle) return { kind: 'cycle', cycle };
  const problems = readyExprProblems(release);
  if (problems.length > 0) return { kind: 'invalid-expression', problems };
  const targets = dependencyTargets(release);
  const releases = targets.filter((t) => t.isRelease);
  const missing = [...new Set(releases.map((t) => releaseKey(t.namespace, t.name)).filter((key) => !lookup(key)))];
  if (missing.length > 0) return { kind: 'missing', missing };
  const notReady: string[] = [];
  const details: string[] = [];
  for (const target of targets) {
    if (target.isRelease) {
      const key = releaseKey(target.namespace, target.name);
      const why = dependencyNotReady(target, { object: lookup(key)! }, release);
      if (why === undefined) continue;
      // The plain HelmRelease case keeps its one-line message; a readyExpr says what it found.
      if (target.readyExpr === undefined) notReady.push(key);
      else details.push(`${describeTarget(target)}: ${why}`);
      continue;
    }
    const found = objects(target);
    if (!found) details.push(`${describeTarget(target)}: not read`);
    else if (found.kind === 'unreadable') details.push(`${describeTarget(target)}: ${found.message}`);
    else if (found.kind === 'missing') details.push(`${describeTarget(target, found.clusterScoped)}: does not exist yet`);
    else {
      const why = dependencyNotReady(target, found, release);
      if (why !== undefined) details.push(`${describeTarget(target, found.clusterScoped)}: ${why}`);
    }
  }
  if (notReady.length === 0 && details.length === 0) return { kind: 'ready' };
  return { kind: 'waiting', notReady, ...(details.length > 0 ? { details } : {}) };
}

/** A path self → … → self through dependsOn, if this release is on a cycle (a release depending on itself included). */
export function findCycle(self: string, lookup: ReleaseLookup, start?: HelmRelease): string[] | undefined {
  const visited = new Set<string>();
  const walk = (key: string, path: string[]): string[] | undefined => {
    const release = key === self && start ? start : lookup(key);
    if (!release) return undefined;
    for (const next of dependencyKeys(release)) {
      if (next === self) return [...path, self];
      if (visited.has(next)) continue;
      visited.add(next);
      const found = walk(next, [...path, next]);
      if (found) return found;
    }
    return undefined;
  };
  return walk(self, [self]);
}

/** The releases that list `key` in dependsOn: enqueued when it becomes Ready (or appears). */
export function dependantsOf(key: string, releases: HelmRelease[]): string[] {
  return releases.filter((r) => dependencyKeys(r).includes(key)).map((r) => releaseKey(r.metadata.namespace, r.metadata.name));
}

/** Who names a key in dependsOn, directly: a scan (dependantsOf) or an index kept by the watch. */
export type DirectDependants = (key: string) => Iterable<string>;

/**
 * Every release whose dependsOn reaches `key`, directly or through others. A release that appears
 * or changes its dependsOn can close a cycle anywhere above it (x → y → z: z appearing, naming x,
 * puts x on a cycle though x names only y).
 */
export function chainDependantsOf(key: string, direct: DirectDependants): string[] {
  const found = new Set<string>();
  const next = [key];
  for (let at = next.shift(); at !== undefined; at = next.shift()) {
    for (const dependant of direct(at)) {
      if (dependant === key || found.has(dependant)) continue;
      found.add(dependant);
      next.push(dependant);
    }
  }
  return [...found];
}

export type DependantsToWake = 'none' | 'direct' | 'chain';

/**
 * Which dependants to wake on a watch event: the whole chain above a release that appears or
 * whose spec changed (what it names may close a cycle or fill a missing link); the direct ones when
 * it becomes Ready; none otherwise (their backoff looks again).
 */
export function dependantsToWake(event: 'add' | 'update', specChanged: boolean, wasReady: boolean | undefined, ready: boolean): DependantsToWake {
  if (event === 'add' || specChanged) return 'chain';
  return ready && wasReady !== true ? 'direct' : 'none';
}

/**
 * Backoff while waiting for dependencies, from how long it has waited so far: as long again
 * (checks at about 2, 4, 8, 16 s …), between 2 s and 1 minute. A dependency that becomes Ready
 * wakes its dependants at once anyway; this is the fallback.
 */
export function dependencyRetryMs(waitedMs: number): number {
  return Math.min(60_000, Math.max(2000, Math.round(waitedMs)));
}

export function describeVerdict(verdict: Exclude<DependencyVerdict, { kind: 'ready' }>): string {
  switch (verdict.kind) {
    case 'waiting': {
      const plain = verdict.notReady.length > 0 ? [`${verdict.notReady.join(', ')} to be Ready at its current generation`] : [];
      return `Waiting for ${[...plain, ...(verdict.details ?? [])].join('; ')} (dependsOn)`;
    }
    case 'missing':
      return `dependsOn names ${verdict.missing.join(', ')}, which does not exist; create it or remove it from dependsOn`;
    case 'cycle':
      return `dependsOn forms a cycle: ${verdict.cycle.join(' → ')}; remove one of these dependencies`;
    case 'invalid-expression':
      return `${verdict.problems.join('; ')}; fix the expression (CEL over dep and self)`;
  }
}
