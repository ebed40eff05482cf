import { parseAllDocuments } from 'yaml';
import { canonicalJson, isPlainObject } from './values.js';

/**
 * Pure: what changes between two rendered manifests (Helm's multi-document YAML), object by
 * object, as field paths. Values are never carried, with one exception people need to judge an
 * upgrade: container images, which are public by nature. A Secret's contents are never looked
 * at beyond "changed".
 */

export interface ObjectId {
  kind: string;
  name: string;
  namespace?: string;
  apiVersion: string;
}

export interface ChangedObject {
  object: ObjectId;
  /** JSON-pointer-like paths (`/spec/template/spec/containers/0/image`) that differ. */
  fields: string[];
  /** Image changes (`path: old → new`): the one kind of value a plan shows. */
  images: string[];
  /** A Secret: its contents changed; which keys is not said either. */
  hidden?: boolean;
}

export interface ManifestDiff {
  added: ObjectId[];
  removed: ObjectId[];
  changed: ChangedObject[];
}

export const SECRET_KINDS = new Set(['Secret']);

export function diffManifests(before: string, after: string): ManifestDiff {
  const old = objectsByKey(before);
  const now = objectsByKey(after);
  const diff: ManifestDiff = { added: [], removed: [], changed: [] };
  for (const [key, next] of now) {
    const prev = old.get(key);
    if (!prev) {
      diff.added.push(idOf(next));
      continue;
    }
    const fields = changedPaths(prev, next);
    if (fields.length === 0) continue;
    const object = idOf(next);
    if (SECRET_KINDS.has(object.kind)) diff.changed.push({ object, fields: [], images: [], hidden: true });
    else diff.changed.push({ object, fields, images: imageChanges(prev, next, fields) });
  }
  for (const [key, prev] of old) if (!now.has(key)) diff.removed.push(idOf(prev));
  return diff;
}

export function isEmptyDiff(diff: ManifestDiff): boolean {
  return diff.added.length === 0 && diff.removed.length === 0 && diff.changed.length === 0;
}

export function describeObject(id: ObjectId): string {
  return `${id.kind} ${id.namespace ? `${id.namespace}/` : ''}${id.name}`;
}

export type K8sObject = Record<string, unknown> & { kind: string; metadata: { name: string; namespace?: string } };

/** Objects keyed by API group, kind, namespace and name (a version change is a change, not a swap). */
export function objectsByKey(manifest: string): Map<string, K8sObject> {
  const out = new Map<string, K8sObject>();
  for (const doc of parseAllDocuments(manifest)) {
    if (doc.errors.length > 0) throw new Error(`the rendered manifest is not valid YAML: ${doc.errors[0]!.message}`);
    const value: unknown = doc.toJS();
    if (!isPlainObject(value) || typeof value.kind !== 'string' || !isPlainObject(value.metadata) || typeof value.metadata.name !== 'string') continue;
    const object = value as K8sObject;
    out.set(keyOf(object), object);
  }
  return out;
}

function keyOf(object: K8sObject): string {
  const apiVersion = typeof object.apiVersion === 'string' ? object.apiVersion : '';
  const group = apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
  return `${group}|${object.kind}|${object.metadata.namespace ?? ''}|${object.metadata.name}`;
}

export function idOf(object: K8sObject): ObjectId {
  return {
    kind: object.kind,
    name: object.metadata.name,
    ...(object.metadata.namespace ? { namespace: object.metadata.namespace } : {}),
    apiVersion: typeof object.apiVersion === 'string' ? object.apiVersion : '',
  };
}

/** Leaf paths that differ; arrays are walked by index (containers keep their order in a chart). */
function changedPaths(a: unknown, b: unknown, path = ''): string[] {
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].sort().flatMap((key) => changedPaths(a[key], b[key], `${path}/${escapePointer(key)}`));
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const length = Math.max(a.length, b.length);
    return Array.from({ length }, (_, i) => changedPaths(a[i], b[i], `${path}/${i}`)).flat();
  }
  return canonicalJson(a) === canonicalJson(b) ? [] : [path || '/'];
}

function imageChanges(prev: K8sObject, next: K8sObject, fields: string[]): string[] {
  return fields.filter((field) => field.endsWith('/image')).map((field) => `${field}: ${imageText(at(prev, field))} → ${imageText(at(next, field))}`);
}

/** An image is a string; anything else in that place is shown by its type, not its contents. */
function imageText(value: unknown): string {
  if (value === undefined) return '(none)';
  return typeof value === 'string' ? value : `(${Array.isArray(value) ? 'array' : typeof value})`;
}

function at(object: unknown, pointer: string): unknown {
  let current = object;
  for (const part of pointer.split('/').slice(1)) {
    const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(current)) current = current[Number(key)];
    else if (isPlainObject(current)) current = current[key];
    else return undefined;
  }
  return current;
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}
