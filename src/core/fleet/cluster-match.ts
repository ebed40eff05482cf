import { DEFAULT_CLUSTER } from './cluster-keys.js';

/**
 * Which clusters a Team's subscription or permission (or a fleet freeze) names (pure). A pattern is a
 * cluster name or a glob where `*` stands for any run of characters (`staging-*`, `*-eu`, `*`).
 * No `clusters` field at all means **every cluster**: a Team written before fleets existed keeps
 * hearing and doing what it did, in every cluster of the fleet (docs/api/team.md).
 */

/** A cluster a notification or a command comes from: its HELMCREW_CLUSTER_NAME, `default` when unnamed. */
export function clusterOf(cluster: string | undefined): string {
  return cluster && cluster.trim() !== '' ? cluster : DEFAULT_CLUSTER;
}

/** Does one pattern match this text? `*` matches any run (also of `*` itself), every other character itself. */
export function globMatches(pattern: string, text: string): boolean {
  const parts = pattern.split('*');
  if (parts.length === 1) return pattern === text;
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  if (text.length < first.length + last.length || !text.startsWith(first) || !text.endsWith(last)) return false;
  let at = first.length;
  const end = text.length - last.length;
  for (const middle of parts.slice(1, -1)) {
    const found = text.indexOf(middle, at);
    if (found < 0 || found + middle.length > end) return false;
    at = found + middle.length;
  }
  return true;
}

/**
 * Does a `clusters` field take in this cluster? Absent: every cluster; else one of its patterns must
 * match. The cluster may itself be a glob (a fleet freeze on `prod-*`): read as plain text it must
 * match, so `prod-*` and `*` grant it and `prod-eu` does not. That is conservative and sound: a `*`
 * of the field matches any run, also the target's own `*`, so every cluster the target names is
 * matched too.
 */
export function clustersMatch(patterns: readonly string[] | undefined, cluster: string | undefined): boolean {
  if (patterns === undefined) return true;
  const name = clusterOf(cluster);
  return patterns.some((pattern) => globMatches(pattern, name));
}

/** Names and globs of a `clusters` field, for a refusal or a plan line. */
export function describeClusters(patterns: readonly string[] | undefined): string {
  return patterns === undefined ? 'every cluster' : `clusters ${patterns.join(', ')}`;
}
