import { canonicalJson } from './values.js';

/**
 * Pure: a changed value as a person reads it in a plan — short values as they are, a long string
 * as the part that changed with a little context (`…color:pink">… → …color:blue">…`), a
 * multi-line string as the lines that changed. Every text is bounded, so a page of HTML or a
 * 5 MB ConfigMap never makes a large answer.
 */

export interface ValueLimits {
  /** Characters per shown value or line (longer ones are elided with …). */
  valueChars: number;
  /** Changed lines of a multi-line value kept (both sides, every hunk); the others are counted. */
  hunkLines: number;
}

/** Lines that changed together: where, and both sides (a line changed in place: its changed part). */
export interface LineHunk {
  /** 1-based line of the value before where the hunk begins (for lines only added: before which line). */
  line: number;
  removed: string[];
  added: string[];
}

/** The changed lines of a multi-line string, as hunks without context (a plan says what, not a patch). */
export interface LineDiff {
  hunks: LineHunk[];
  /** Changed lines left out of `hunks` (over `hunkLines`). */
  omittedLines: number;
}

/** Characters of unchanged text kept on each side of a change inside a long string. */
const CONTEXT = 16;
/** Strings longer than this are shown as their changed part: a plan line should fit a chat line. */
const ELIDE_OVER = 60;

/** A value's text: a string as it is, anything else as compact JSON (keys sorted). */
export function valueText(value: unknown, max: number): string {
  if (typeof value === 'string') return clip(value.length === 0 ? '""' : value, max);
  return clip(canonicalJson(value), max);
}

/**
 * Two different strings shown so the difference is visible in `max` characters each: when either
 * is longer than a chat line, both keep only the changed middle and CONTEXT characters around it.
 */
export function elidePair(before: string, after: string, max: number): [string, string] {
  if (before.length <= Math.min(max, ELIDE_OVER) && after.length <= Math.min(max, ELIDE_OVER)) return [valueText(before, max), valueText(after, max)];
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let end = 0;
  while (end < before.length - start && end < after.length - start && before[before.length - 1 - end] === after[after.length - 1 - end]) end++;
  const from = Math.max(0, start - CONTEXT);
  const piece = (text: string) => {
    const to = Math.min(text.length, text.length - end + CONTEXT);
    const middle = text.slice(from, to);
    return `${from > 0 ? '…' : ''}${middle}${to < text.length ? '…' : ''}`;
  };
  return [clip(piece(before), max), clip(piece(after), max)];
}

/** Beyond this many cells the line comparison is not worth its time: the changed middle is one hunk. */
const MAX_LCS_CELLS = 1_000_000;

/**
 * The lines that changed between two multi-line strings: the common first and last lines are set
 * aside, the middle is compared line by line (longest common subsequence, bounded by
 * MAX_LCS_CELLS) and what differs is grouped into hunks; at most `hunkLines` lines are kept.
 */
export function lineDiff(before: string, after: string, limits: ValueLimits): LineDiff {
  const a = before.split('\n');
  const b = after.split('\n');
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let end = 0;
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end++;
  const hunks = middleHunks(a.slice(start, a.length - end), b.slice(start, b.length - end), start).flatMap(paired);
  const out: LineHunk[] = [];
  let room = limits.hunkLines;
  let omittedLines = 0;
  for (const hunk of hunks) {
    const size = hunk.removed.length + hunk.added.length;
    if (room <= 0) {
      omittedLines += size;
      continue;
    }
    if (hunk.removed.length === 1 && hunk.added.length === 1) {
      // Indentation says nothing once the line stands alone.
      const [r, n] = elidePair(hunk.removed[0]!.trim(), hunk.added[0]!.trim(), limits.valueChars);
      out.push({ line: hunk.line, removed: [r], added: [n] });
      room -= 2;
      continue;
    }
    const removed = hunk.removed.slice(0, room);
    const added = hunk.added.slice(0, Math.max(0, room - removed.length));
    omittedLines += size - removed.length - added.length;
    room -= removed.length + added.length;
    out.push({ line: hunk.line, removed: removed.map((l) => clip(l, limits.valueChars)), added: added.map((l) => clip(l, limits.valueChars)) });
  }
  return { hunks: out, omittedLines };
}

/** A hunk of as many lines after as before reads best line by line: each line changed in place. */
function paired(hunk: LineHunk): LineHunk[] {
  if (hunk.removed.length !== hunk.added.length || hunk.removed.length === 1) return [hunk];
  return hunk.removed.map((line, k) => ({ line: hunk.line + k, removed: [line], added: [hunk.added[k]!] }));
}

function middleHunks(a: string[], b: string[], offset: number): LineHunk[] {
  if (a.length === 0 && b.length === 0) return [];
  if (a.length * b.length > MAX_LCS_CELLS) return [{ line: offset + 1, removed: a, added: b }];
  // lcs[i][j]: the longest common subsequence of a[i..] and b[j..], in one flat array.
  const width = b.length + 1;
  const lcs = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i * width + j] = a[i] === b[j] ? lcs[(i + 1) * width + j + 1]! + 1 : Math.max(lcs[(i + 1) * width + j]!, lcs[i * width + j + 1]!);
    }
  }
  const hunks: LineHunk[] = [];
  let current: LineHunk | undefined;
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      current = undefined;
      i++;
      j++;
      continue;
    }
    if (!current) hunks.push((current = { line: offset + i + 1, removed: [], added: [] }));
    if (j >= b.length || (i < a.length && lcs[(i + 1) * width + j]! >= lcs[i * width + j + 1]!)) current.removed.push(a[i++]!);
    else current.added.push(b[j++]!);
  }
  return hunks;
}

/** Is a change between these two values best shown as lines? Both strings, and one of them has several. */
export function isMultiLine(before: unknown, after: unknown): before is string {
  return typeof before === 'string' && typeof after === 'string' && (before.trimEnd().includes('\n') || after.trimEnd().includes('\n'));
}

export function clip(text: string, max: number): string {
  const oneLine = text.replace(/\n/g, '⏎');
  return oneLine.length <= max ? oneLine : `${oneLine.slice(0, Math.max(0, max - 1))}…`;
}
