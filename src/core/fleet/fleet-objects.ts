import type { ObjectRow } from '../release/object-rows.js';

/**
 * A release's objects as an agent answers the hub's web (the `objects` question, fleet-query.ts):
 * one row an object — kind, name, namespace, health and a short message — never the object itself
 * (a Secret's data, a ConfigMap's contents): the answer travels through Redis. Pure.
 */

/** As many rows as a release page lists (inventoryRefs' bound). */
export const FLEET_OBJECTS_MAX = 200;
/** A health message is a line (kstatus' words, a read's refusal); anything longer is cut. */
const MESSAGE_MAX = 300;
const HEALTH: ReadonlySet<string> = new Set<ObjectRow['health']>(['current', 'in-progress', 'failed', 'missing', 'unknown']);
const NAME_MAX = 253;

const text = (value: unknown, max: number): string | undefined => (typeof value === 'string' && value.length <= max ? value : undefined);

/**
 * The rows that may leave (or, on the hub, be shown): each well-formed one reduced to the row's five
 * fields, its message cut, at most `max`; anything else is dropped. The agent applies it to what it
 * read, the web to what arrived.
 */
export function objectRowsForFleet(rows: unknown, max = FLEET_OBJECTS_MAX): ObjectRow[] {
  if (!Array.isArray(rows)) return [];
  const kept: ObjectRow[] = [];
  for (const row of rows.slice(0, max)) {
    if (typeof row !== 'object' || row === null) continue;
    const r = row as Record<string, unknown>;
    const kind = text(r.kind, NAME_MAX);
    const name = text(r.name, NAME_MAX);
    const namespace = text(r.namespace, NAME_MAX);
    const message = typeof r.message === 'string' ? r.message.slice(0, MESSAGE_MAX) : '';
    if (!kind || !name || namespace === undefined || typeof r.health !== 'string' || !HEALTH.has(r.health)) continue;
    kept.push({ kind, name, namespace, health: r.health as ObjectRow['health'], message });
  }
  return kept;
}
