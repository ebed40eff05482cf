import { MAX_HELD_LISTED, type Freeze, type FreezeHeld } from '../../api/freeze.js';
import { openWindowStart } from '../../core/release/freeze-windows.js';

/**
 * Pure: what a Freeze's status says it held. The freeze gate adds a release when the freeze starts
 * holding it; a new period (the next window) starts the list again, so the report of a window's
 * close names what that window held.
 */

/** The period a hold now belongs to: the open window's start, or (no windows) when the freeze was created. */
export function heldPeriodStart(freeze: Freeze, now: Date): string {
  const windows = freeze.spec.windows ?? [];
  const open = windows.length > 0 ? openWindowStart(windows, now) : undefined;
  return (open ?? new Date(freeze.metadata.creationTimestamp ?? 0)).toISOString();
}

/** The held record with this release in it; undefined when it is there already (nothing to write). */
export function withHeldRelease(held: FreezeHeld | undefined, since: string, entry: FreezeHeld['releases'][number]): FreezeHeld | undefined {
  const current = held?.since === since ? held : { since, releases: [] };
  if (current.releases.some((r) => r.release === entry.release)) return undefined;
  if (current.releases.length >= MAX_HELD_LISTED) return { ...current, more: (current.more ?? 0) + 1 };
  return { ...current, releases: [...current.releases, entry] };
}
