import type { FieldChange, ObjectDiff, ReadableDiff } from './readable-diff.js';
import { isEmptyReadableDiff } from './readable-diff.js';

/**
 * Pure: a readable diff as text for chat and the terminal — a count line, each object on a line
 * of its own and its changed fields under it (`  data["index.html"]: …pink… → …blue…`). `lines`
 * is what the plan shows; `rest` is what it left out, posted in a thread (empty when nothing was).
 */

export interface DiffTextLimits {
  /** Objects shown in `lines`. */
  objects: number;
  /** Changed fields shown per object in `lines`. */
  changes: number;
  /** Rows of a multi-line change shown in `lines`. */
  hunkLines: number;
}

export const CHAT_LIMITS: DiffTextLimits = { objects: 5, changes: 3, hunkLines: 2 };

export interface DiffText {
  lines: string[];
  rest: string[];
}

export function describeDiffObject(object: Pick<ObjectDiff, 'kind' | 'namespace' | 'name'>): string {
  return `${object.kind} ${object.namespace ? `${object.namespace}/` : ''}${object.name}`;
}

export function summarizeReadableDiff(diff: ReadableDiff, limits: DiffTextLimits = CHAT_LIMITS): DiffText {
  if (isEmptyReadableDiff(diff)) return { lines: [countLine(diff)], rest: [] };
  const lines = [countLine(diff)];
  const rest: string[] = [];
  diff.objects.forEach((object, i) => {
    if (i >= limits.objects) {
      rest.push(...objectLines(object, Infinity, Infinity));
      return;
    }
    lines.push(...objectLines(object, limits.changes, limits.hunkLines));
    const cut = object.changes.slice(limits.changes);
    const trimmedHunks = object.changes.slice(0, limits.changes).some((c) => hunkRows(c) > limits.hunkLines);
    if (cut.length > 0 || trimmedHunks)
      rest.push(`${objectHead(object)} (in full)`, ...object.changes.flatMap((c) => changeLines(c, Infinity)), ...omittedLine(object));
  });
  if (diff.omittedObjects > 0) rest.push(`… and ${diff.omittedObjects} more object${diff.omittedObjects === 1 ? '' : 's'}, too many to show`);
  return { lines, rest };
}

/** Pure: the whole diff as text, every object in full (what the diff holds: it is bounded already). */
export function readableDiffText(diff: ReadableDiff): string[] {
  return [
    countLine(diff),
    ...diff.objects.flatMap((object) => objectLines(object, Infinity, Infinity)),
    ...(diff.omittedObjects > 0 ? [`… and ${diff.omittedObjects} more object${diff.omittedObjects === 1 ? '' : 's'}, too many to show`] : []),
  ];
}

/** An object's head line and, when it changed, its fields (up to `changes`, each multi-line one up to `hunkLines` rows). */
export function objectLines(object: ObjectDiff, changes: number, hunkLines: number): string[] {
  if (object.hidden) return [`${objectHead(object)}: contents changed (not shown)`];
  const shown = object.changes.slice(0, changes);
  const left = object.changes.length - shown.length + object.omittedChanges;
  return [objectHead(object), ...shown.flatMap((c) => changeLines(c, hunkLines)), ...(left > 0 ? [`  … and ${left} more change${left === 1 ? '' : 's'}`] : [])];
}

/** One changed field: `  path: before → after`; a multi-line one with its changed lines under it (up to `hunkRows` rows). */
export function changeLines(change: FieldChange, hunkRows: number): string[] {
  if (change.hidden) return [`  ${change.path}: changed (value not shown)`];
  if (!change.lines) return [`  ${change.path}: ${change.before ?? '(unset)'} → ${change.after ?? '(unset)'}`];
  const rows = change.lines.hunks.flatMap((hunk) =>
    hunk.removed.length === 1 && hunk.added.length === 1
      ? [`    line ${hunk.line}: ${hunk.removed[0]} → ${hunk.added[0]}`]
      : [`    line ${hunk.line}:`, ...hunk.removed.map((l) => `      - ${l}`), ...hunk.added.map((l) => `      + ${l}`)],
  );
  const shown = rows.slice(0, hunkRows);
  const left = rows.length - shown.length + change.lines.omittedLines;
  return [
    `  ${change.path} (${change.before} → ${change.after}):`,
    ...shown,
    ...(left > 0 ? [`    … and ${left} more changed line${left === 1 ? '' : 's'}`] : []),
  ];
}

/** Rows a multi-line change takes in full (changeLines with no cut). */
function hunkRows(change: FieldChange): number {
  return (change.lines?.hunks ?? []).reduce((n, h) => n + (h.removed.length === 1 && h.added.length === 1 ? 1 : 1 + h.removed.length + h.added.length), 0);
}

/** `objects: 1 added, 2 changed` (every object that differs, shown or not), or `objects: no change`. */
function countLine(diff: ReadableDiff): string {
  if (isEmptyReadableDiff(diff)) return 'objects: no change';
  const { added, changed, removed } = diff.counts;
  const counts = [added ? `${added} added` : '', changed ? `${changed} changed` : '', removed ? `${removed} removed` : ''].filter(Boolean);
  return `objects: ${counts.join(', ')}`;
}

function objectHead(object: ObjectDiff): string {
  const sign = object.change === 'added' ? '+' : object.change === 'removed' ? '-' : '~';
  return `${sign} ${describeDiffObject(object)}`;
}

function omittedLine(object: ObjectDiff): string[] {
  return object.omittedChanges > 0 ? [`  … and ${object.omittedChanges} more change${object.omittedChanges === 1 ? '' : 's'}, too many to show`] : [];
}
