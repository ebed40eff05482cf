import { parseAllDocuments } from 'yaml';
import { isPlainObject } from './values.js';

/**
 * Pure: a rendered manifest (Helm's multi-document YAML) as its objects, keyed so two revisions'
 * objects can be compared (readable-diff.ts compares them).
 */

export interface ObjectId {
  kind: string;
  name: string;
  namespace?: string;
  apiVersion: string;
}

/** Kinds whose contents a diff never looks at beyond "changed". */
export const SECRET_KINDS = new Set(['Secret']);

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
