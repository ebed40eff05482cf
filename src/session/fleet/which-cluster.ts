/**
 * Pure: which cluster a command without `--cluster` means, when the bot drives a fleet. A release
 * name found in one cluster goes there; found in several, the person is asked (never a guess);
 * found nowhere, the bot's own cluster answers as it always did ("no release …").
 */

export interface Search {
  cluster: string;
  /** Releases of that name (and namespace, when given) there; undefined when the cluster could not be asked. */
  matches?: number;
}

export type Choice = { kind: 'one'; cluster: string } | { kind: 'ask'; clusters: string[] } | { kind: 'none' };

export function whichCluster(searches: readonly Search[]): Choice {
  const found = searches.filter((s) => (s.matches ?? 0) > 0).map((s) => s.cluster);
  if (found.length === 1) return { kind: 'one', cluster: found[0]! };
  if (found.length > 1) return { kind: 'ask', clusters: [...found].sort() };
  return { kind: 'none' };
}

/** The same command for one cluster: what a "which cluster?" button carries. */
export function commandForCluster(text: string, cluster: string): string {
  return `${text.trim()} --cluster ${cluster}`;
}

/** A title or an answer naming its cluster. */
export function inCluster(title: string, cluster: string): string {
  return `${title} (cluster ${cluster})`;
}
