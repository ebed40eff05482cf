import { describeObject, isEmptyDiff, type ManifestDiff } from './manifest-diff.js';

/**
 * Pure: a manifest diff in a few lines for chat, and the rest for a thread. The summary names
 * every count, the first objects of each kind of change and the first fields of each changed
 * object; `rest` holds what the summary left out (empty when nothing was).
 */

export interface DiffSummaryLimits {
  /** Objects named per list (added, removed, changed). */
  objects: number;
  /** Fields named per changed object. */
  fields: number;
}

export const CHAT_LIMITS: DiffSummaryLimits = { objects: 5, fields: 3 };

export interface DiffSummary {
  lines: string[];
  rest: string[];
}

export function summarizeManifestDiff(diff: ManifestDiff, limits: DiffSummaryLimits = CHAT_LIMITS): DiffSummary {
  if (isEmptyDiff(diff)) return { lines: ['objects: no change'], rest: [] };
  const counts = [
    diff.added.length ? `${diff.added.length} added` : '',
    diff.changed.length ? `${diff.changed.length} changed` : '',
    diff.removed.length ? `${diff.removed.length} removed` : '',
  ].filter(Boolean);
  const lines = [`objects: ${counts.join(', ')}`];
  const rest: string[] = [];
  const list = (items: string[], into: string[], overflow: string[]) => {
    into.push(...items.slice(0, limits.objects));
    overflow.push(...items.slice(limits.objects));
  };
  list(
    diff.added.map((id) => `+ ${describeObject(id)}`),
    lines,
    rest,
  );
  list(
    diff.removed.map((id) => `- ${describeObject(id)}`),
    lines,
    rest,
  );
  const changed = diff.changed.map((c) => {
    if (c.hidden) return { head: `~ ${describeObject(c.object)}: contents changed (not shown)`, more: [] as string[] };
    const shown = [...c.images, ...c.fields.filter((f) => !f.endsWith('/image'))];
    const head = `~ ${describeObject(c.object)}: ${shown.slice(0, limits.fields).join(', ')}${shown.length > limits.fields ? `, and ${shown.length - limits.fields} more` : ''}`;
    return { head, more: shown.length > limits.fields ? [`~ ${describeObject(c.object)}: ${shown.join(', ')}`] : [] };
  });
  changed.slice(0, limits.objects).forEach((c) => {
    lines.push(c.head);
    rest.push(...c.more);
  });
  rest.push(...changed.slice(limits.objects).map((c) => c.more[0] ?? c.head));
  return { lines, rest };
}
