import { createHash } from 'node:crypto';
import type { Freeze } from '../../api/freeze.js';
import { nextFreezeChange } from '../../core/release/freeze-match.js';
import type { Proposal } from '../../core/proposals/proposal.js';
import type { Subject, TeamPolicy } from '../../session/authz/policy-types.js';
import type { FleetFilters } from '../views/fleet-view.js';

/**
 * The fleet page's body, rendered once and served again until something it shows may have changed:
 * the web's RSS at 1,000 releases grew with every render of the 133 KiB page (its garbage promoted
 * to old space, docs/performance.md), and most requests are the same people reloading the same
 * page. Only over the shared watch's memory (a fleet's other clusters are not watched).
 */

/**
 * Pure: what a fleet body depends on besides the watched objects — who looks (their subject and
 * their Teams, read on this request: a Team changed is another key), the filters, and the live
 * proposals (from Redis, not watched: each id marks its release). A digest, so a key stays small.
 */
export function fleetBodyKey(viewer: { subject: Subject; teams: readonly TeamPolicy[] }, filters: FleetFilters, proposals: readonly Proposal[]): string {
  const marked = proposals.map((p) => `${p.release.cluster}/${p.release.namespace}/${p.release.name}/${p.id}`).sort();
  return createHash('sha256')
    .update(JSON.stringify([viewer.subject, viewer.teams, filters, marked]))
    .digest('base64url');
}

/** Pure: until when a body rendered at `now` stays true — the next time a Freeze starts or stops holding (its `until`, a window). */
export function keptUntil(freezes: readonly Freeze[], now: Date): number {
  return nextFreezeChange(freezes, now)?.getTime() ?? Number.POSITIVE_INFINITY;
}

interface Kept<T> {
  /** The watch's revision it was rendered at: any change the watch saw since makes it old. */
  revision: number;
  until: number;
  value: T;
}

/** When a render is asked for: the watch's revision, the time, and until when a render made now stays true. */
export interface RenderTime {
  revision: number;
  now: number;
  until: () => number;
}

/** A few renders (the most recently used kept), each valid for one watch revision and until a freeze changes. */
export class KeptRenders<T = string> {
  private readonly kept = new Map<string, Kept<T>>();

  constructor(private readonly max: number) {}

  /** The render for `key`: the kept one when still valid, else made now and kept. */
  take(key: string, at: RenderTime, render: () => T): T {
    const found = this.kept.get(key);
    if (found) {
      this.kept.delete(key);
      if (found.revision === at.revision && at.now < found.until) {
        this.kept.set(key, found);
        return found.value;
      }
    }
    // Old bodies go at once (not at eviction): they are what the process would otherwise hold.
    for (const [k, v] of this.kept) if (v.revision !== at.revision) this.kept.delete(k);
    const value = render();
    this.kept.set(key, { revision: at.revision, until: at.until(), value });
    if (this.kept.size > this.max) this.kept.delete(this.kept.keys().next().value!);
    return value;
  }

  get size(): number {
    return this.kept.size;
  }
}
