import { globMatches } from '../core/fleet/cluster-match.js';

/**
 * Which clusters' keyspaces one notify serves (pure). HELMCREW_NOTIFY_CLUSTERS lists names and
 * globs: a plain name is served at once (its keyspace may fill later), a glob takes in every cluster
 * of the fleet index it matches (`*`: the whole fleet), looked at again as clusters announce themselves.
 */

/** HELMCREW_NOTIFY_CLUSTERS split into its patterns, or why it cannot be read. */
export function parseNotifyClusters(raw: string | undefined): { ok: true; patterns: string[] } | { ok: false; message: string } {
  const patterns = (raw ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  const bad = patterns.filter((p) => !/^[a-z0-9*]([-a-z0-9*]{0,61}[a-z0-9*])?$/.test(p));
  if (bad.length > 0) {
    return {
      ok: false,
      message: `HELMCREW_NOTIFY_CLUSTERS must list cluster names or globs (lower-case letters, digits, '-' and '*', comma-separated), got "${bad.join('", "')}"`,
    };
  }
  return { ok: true, patterns };
}

/** Does serving these patterns need the fleet index (a glob among them)? */
export function needsIndex(patterns: readonly string[]): boolean {
  return patterns.some((p) => p.includes('*'));
}

/** The clusters to serve: the plain names, and the indexed clusters a glob matches; sorted, once each. */
export function clustersToServe(patterns: readonly string[], indexed: readonly string[]): string[] {
  const named = patterns.filter((p) => !p.includes('*'));
  const globs = patterns.filter((p) => p.includes('*'));
  const matched = indexed.filter((name) => globs.some((g) => globMatches(g, name)));
  return [...new Set([...named, ...matched])].sort();
}
