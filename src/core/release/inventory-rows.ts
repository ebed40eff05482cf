import type { Inventory } from '../../api/helmrelease-status.js';
import type { ObjectReads } from '../kube/object-reader.js';
import { inventoryRefs, objectRow, type ObjectRow } from './object-rows.js';

/** At most this many of a release's objects are read for one page (or one agent's answer): the rest are listed unread. */
export const OBJECT_READ_LIMIT = 40;

/**
 * A release's inventory objects as health rows: the first `limit` read through `reader` (a read that
 * fails is its row's message, not an error), the rest — and all of them without a reader — listed
 * unread. The web reads its own cluster so; an agent reads its cluster so for another's page.
 */
export function readInventoryRows(reader: ObjectReads | undefined, inventory: Inventory | undefined, limit = OBJECT_READ_LIMIT): Promise<ObjectRow[]> {
  return Promise.all(
    inventoryRefs(inventory).map(async (ref, i) => {
      if (!reader || i >= limit) return objectRow(ref, undefined);
      try {
        return objectRow(ref, await reader.read(ref));
      } catch (error) {
        return objectRow(ref, { kind: 'unreadable', message: `could not be read: ${(error as Error).message}` });
      }
    }),
  );
}
