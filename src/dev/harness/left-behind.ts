// Which namespaces a test file, or a whole run, left behind. Pure: the integration suite's guard
// (test/support/namespace-guard.ts) and its global teardown read the cluster and ask this.
import { FINALIZER } from '../../api/vocabulary.js';

export interface NamespaceSeen {
  name: string;
  /** Asked to be deleted (it has a deletionTimestamp). */
  terminating: boolean;
  /** Its `helmcrew.dev/created-by` label: which test file created it, when the guard marked it. */
  createdBy?: string;
}

export interface ReleaseSeen {
  namespace: string;
  name: string;
  finalizers: string[];
}

export interface LeftBehind {
  namespace: string;
  why: string;
}

/**
 * The namespaces that appeared since `before` and will not go away by themselves once the file's
 * controllers are stopped: never asked to be deleted, or Terminating while a HelmRelease in them
 * keeps helmcrew's finalizer (only a running controller removes it, so it would stay for good).
 */
export function namespacesLeftBehind(
  before: ReadonlySet<string>,
  now: NamespaceSeen[],
  releases: ReleaseSeen[],
  /** Which new namespaces are this file's: all of them when files run one at a time. */
  isMine: (ns: NamespaceSeen) => boolean = () => true,
): LeftBehind[] {
  const left: LeftBehind[] = [];
  for (const ns of now) {
    if (before.has(ns.name) || !isMine(ns)) continue;
    if (!ns.terminating) {
      left.push({ namespace: ns.name, why: 'never deleted' });
      continue;
    }
    const held = releases.filter((r) => r.namespace === ns.name && r.finalizers.includes(FINALIZER)).map((r) => r.name);
    if (held.length > 0) left.push({ namespace: ns.name, why: `Terminating, held by ${FINALIZER} on HelmRelease ${held.join(', ')}` });
  }
  return left;
}

/** Names in `now` that were not in `before`: what a run created and has not removed yet. */
export function namespacesAddedSince(before: ReadonlySet<string>, now: NamespaceSeen[]): string[] {
  return now.filter((ns) => !before.has(ns.name)).map((ns) => ns.name);
}

/**
 * Whether a new namespace is the marked file's, when files run side by side: marked by it, or
 * unmarked only when no other file can run beside it (`alone`) — an unmarked one (made by helm
 * or a controller) cannot be told apart then, and the global teardown still catches it.
 */
export function createdByFile(owner: string, alone: boolean): (ns: NamespaceSeen) => boolean {
  return (ns) => ns.createdBy === owner || (alone && ns.createdBy === undefined);
}
