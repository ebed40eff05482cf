import { objectsByKey, idOf, SECRET_KINDS, type K8sObject } from './manifest-diff.js';
import { elidePair, isMultiLine, lineDiff, valueText, type LineDiff, type ValueLimits } from './readable-value.js';
import { indexSegment, itemNames, joinPath, keySegment, nameSegment } from './readable-path.js';
import { canonicalJson, isPlainObject } from './values.js';

/**
 * Pure: what changes between two rendered manifests, object by object, with each changed field's
 * value before and after at a readable path — the one model the plans in Slack and the terminal,
 * the proposals and the web pages render. A Secret's contents are never looked at beyond
 * "changed"; `redact` hides values that came from Secrets wherever a chart put them; everything
 * is bounded, with counts of what was left out.
 */

export type ObjectChange = 'added' | 'removed' | 'changed';

export interface FieldChange {
  /** Readable path: `data["index.html"]`, `spec.template.spec.containers[name=web].image`. */
  path: string;
  /** The value before, as a short text; absent when the field is new. */
  before?: string;
  /** The value after, as a short text; absent when the field is gone. */
  after?: string;
  /** A multi-line string: the lines that changed (`before` and `after` then say how many lines). */
  lines?: LineDiff;
  /** The value is not shown (a value from a Secret, or values withheld): only that it changed. */
  hidden?: true;
}

export interface ObjectDiff {
  kind: string;
  apiVersion: string;
  namespace?: string;
  name: string;
  change: ObjectChange;
  /** The changed fields (only for `changed`, in path order); empty for added and removed objects. */
  changes: FieldChange[];
  /** Changed fields left out of `changes` by the bounds. */
  omittedChanges: number;
  /** A Secret: its contents changed; which keys is not said either. */
  hidden?: true;
}

export interface ReadableDiff {
  /** Every object that differs, counted before any bound. */
  counts: Record<ObjectChange, number>;
  /** Added, then removed, then changed objects, as many as the bounds allow. */
  objects: ObjectDiff[];
  /** Objects left out of `objects` by the bounds. */
  omittedObjects: number;
}

export interface ReadableDiffLimits extends ValueLimits {
  objects: number;
  /** Changed fields kept per object. */
  changesPerObject: number;
  /** Changed fields kept in all: what bounds the whole answer. */
  changes: number;
}

/** Bounds for an answer that travels (Redis) and is rendered in full (a web page): a few hundred kB at most. */
export const DIFF_BOUNDS: ReadableDiffLimits = { objects: 100, changesPerObject: 20, changes: 200, valueChars: 160, hunkLines: 12 };

export interface ReadableDiffOptions {
  limits?: ReadableDiffLimits;
  /** Replaces values from Secrets in a text; a change whose value it touches on either side is hidden whole. */
  redact?: (text: string) => string;
  /** Show paths only (the values may hold Secrets nobody can name here), except container images, which are public. */
  withholdValues?: boolean;
}

export function readableDiff(before: string, after: string, options: ReadableDiffOptions = {}): ReadableDiff {
  const limits = options.limits ?? DIFF_BOUNDS;
  const old = objectsByKey(before);
  const now = objectsByKey(after);
  const all: Array<{ change: ObjectChange; prev?: K8sObject; next?: K8sObject }> = [];
  for (const [key, next] of now) if (!old.has(key)) all.push({ change: 'added', next });
  for (const [key, prev] of old) if (!now.has(key)) all.push({ change: 'removed', prev });
  for (const [key, next] of now) {
    const prev = old.get(key);
    if (prev && canonicalJson(prev) !== canonicalJson(next)) all.push({ change: 'changed', prev, next });
  }
  const counts = { added: 0, removed: 0, changed: 0 };
  for (const entry of all) counts[entry.change]++;
  const objects: ObjectDiff[] = [];
  let budget = limits.changes;
  for (const { change, prev, next } of all.slice(0, limits.objects)) {
    const id = idOf((next ?? prev)!);
    const head = { kind: id.kind, apiVersion: id.apiVersion, ...(id.namespace ? { namespace: id.namespace } : {}), name: id.name, change };
    if (change !== 'changed') {
      objects.push({ ...head, changes: [], omittedChanges: 0 });
    } else if (SECRET_KINDS.has(id.kind)) {
      objects.push({ ...head, changes: [], omittedChanges: 0, hidden: true });
    } else {
      const found = fieldChanges(prev, next, []);
      const keep = Math.max(0, Math.min(limits.changesPerObject, budget));
      budget -= Math.min(keep, found.length);
      const changes = found.slice(0, keep).map((f) => describeChange(f, limits, options));
      objects.push({ ...head, changes, omittedChanges: found.length - changes.length });
    }
  }
  return { counts, objects, omittedObjects: all.length - objects.length };
}

export function isEmptyReadableDiff(diff: ReadableDiff): boolean {
  return diff.counts.added + diff.counts.removed + diff.counts.changed === 0;
}

export interface DiffPage {
  objects: ObjectDiff[];
  /** 1-based; clamped to the pages there are. */
  page: number;
  size: number;
  pages: number;
  /** Objects in the diff (shown ones), and those the bounds left out of it. */
  total: number;
  omittedObjects: number;
}

/** Pure: one page of a diff's objects, for a caller that shows more than chat does (the web page). */
export function pageOf(diff: ReadableDiff, page: number, size: number): DiffPage {
  const per = Math.max(1, Math.floor(Number.isFinite(size) ? size : 1));
  const pages = Math.max(1, Math.ceil(diff.objects.length / per));
  const at = Math.min(pages, Math.max(1, Math.floor(Number.isFinite(page) ? page : 1)));
  return { objects: diff.objects.slice((at - 1) * per, at * per), page: at, size: per, pages, total: diff.objects.length, omittedObjects: diff.omittedObjects };
}

interface RawChange {
  segments: string[];
  before: unknown;
  after: unknown;
}

/**
 * The leaves that differ. Maps are walked by key; lists of named items by name; other lists of
 * the same length by index; anything else that differs (a list that grew, a map that appeared) is
 * one change with both whole values.
 */
function fieldChanges(a: unknown, b: unknown, segments: string[]): RawChange[] {
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    return keys.flatMap((key) => fieldChanges(a[key], b[key], [...segments, keySegment(key)]));
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const namesA = itemNames(a);
    const namesB = itemNames(b);
    if (namesA && namesB) {
      const byName = (items: unknown[], names: string[]) => new Map(names.map((name, i) => [name, items[i]]));
      const mapA = byName(a, namesA);
      const mapB = byName(b, namesB);
      const names = [...namesB, ...namesA.filter((n) => !mapB.has(n))];
      return names.flatMap((name) => fieldChanges(mapA.get(name), mapB.get(name), [...segments, nameSegment(name)]));
    }
    if (a.length === b.length) return a.flatMap((item, i) => fieldChanges(item, b[i], [...segments, indexSegment(i)]));
  }
  return canonicalJson(a) === canonicalJson(b) ? [] : [{ segments, before: a, after: b }];
}

function describeChange(raw: RawChange, limits: ValueLimits, options: ReadableDiffOptions): FieldChange {
  const path = options.redact ? options.redact(joinPath(raw.segments)) : joinPath(raw.segments);
  const image = raw.segments[raw.segments.length - 1] === '.image';
  if (options.withholdValues && !image) return { path, hidden: true };
  if (options.redact && (touched(raw.before, options.redact) || touched(raw.after, options.redact))) return { path, hidden: true };
  if (isMultiLine(raw.before, raw.after)) {
    const after = raw.after as string;
    const lines = lineDiff(raw.before, after, limits);
    return { path, before: lineCount(raw.before), after: lineCount(after), lines };
  }
  if (typeof raw.before === 'string' && typeof raw.after === 'string') {
    const [before, after] = elidePair(raw.before, raw.after, limits.valueChars);
    return { path, before, after };
  }
  return {
    path,
    ...(raw.before !== undefined ? { before: valueText(raw.before, limits.valueChars) } : {}),
    ...(raw.after !== undefined ? { after: valueText(raw.after, limits.valueChars) } : {}),
  };
}

/** Does redaction change any string in this value? Then it holds a Secret's value. */
function touched(value: unknown, redact: (text: string) => string): boolean {
  if (value === undefined) return false;
  const text = typeof value === 'string' ? value : canonicalJson(value);
  return redact(text) !== text;
}

function lineCount(text: string): string {
  const n = text.split('\n').length;
  return `${n} line${n === 1 ? '' : 's'}`;
}
