import type { Inventory } from '../../api/helmrelease-status.js';
import type { ObjectFound, ObjectRef } from '../kube/object-reader.js';
import { objectReadiness } from '../kube/object-readiness.js';

/** Pure: the objects the deployed revision applied, from status.inventory (Flux's `<namespace>_<name>_<group>_<kind>` ids). */
export function inventoryRefs(inventory: Inventory | undefined, limit = 200): ObjectRef[] {
  const refs: ObjectRef[] = [];
  for (const entry of (inventory?.entries ?? []).slice(0, limit)) {
    const parts = entry.id.split('_');
    if (parts.length !== 4) continue;
    const [namespace, name, group, kind] = parts as [string, string, string, string];
    const apiVersion = group ? (entry.v.includes('/') ? entry.v : `${group}/${entry.v}`) : entry.v;
    refs.push({ apiVersion, kind, name, namespace });
  }
  return refs;
}

export interface ObjectRow {
  kind: string;
  name: string;
  namespace: string;
  health: 'current' | 'in-progress' | 'failed' | 'missing' | 'unknown';
  message: string;
}

/** Pure: one object's health on the page, by the kstatus rules the controller's health checks use (core/kube/object-readiness.ts). */
export function objectRow(ref: ObjectRef, found: ObjectFound | undefined): ObjectRow {
  const base = { kind: ref.kind, name: ref.name, namespace: ref.namespace };
  if (!found) return { ...base, health: 'unknown', message: 'not read' };
  switch (found.kind) {
    case 'missing':
      return { ...base, health: 'missing', message: 'not found in the cluster' };
    case 'unreadable':
      return { ...base, health: 'unknown', message: found.message };
    case 'found': {
      const readiness = objectReadiness(found.object);
      return { ...base, health: readiness.status, message: readiness.message };
    }
  }
}
