import type { Freeze } from '../../api/freeze.js';
import { freezeActivity } from '../../core/release/freeze-match.js';
import { describeScope } from '../../session/plan/freeze.js';
import { byCodeUnits } from '../../core/release/name-order.js';

export interface FreezeRow {
  name: string;
  scope: string;
  by: string;
  why: string;
  until: string;
  state: 'active' | 'waiting' | 'ended';
  windows: string[];
  problem?: string;
  /** In a fleet: where it holds (`cluster edge`, `fleet: prod-*`); absent on a web of one cluster. */
  where?: string;
  /** Whether the freezes page offers to lift it here (in a fleet, another cluster's Freezes are lifted there). */
  liftable?: boolean;
}

/** Pure: every Freeze of the cluster, active ones first (the banner shows those, the freezes page all). */
export function freezeRows(freezes: readonly Freeze[], now: Date): FreezeRow[] {
  const rows = freezes.map((f): FreezeRow => {
    const activity = freezeActivity(f, now);
    const ended = !activity.active && f.spec.until !== undefined && Date.parse(f.spec.until) <= now.getTime();
    return {
      name: f.metadata.name,
      scope: describeScope(f.spec.scope),
      by: f.spec.setBy ?? 'unknown',
      why: f.spec.reason,
      until: f.spec.until ?? 'until lifted',
      state: activity.active ? 'active' : ended ? 'ended' : 'waiting',
      windows: (f.spec.windows ?? []).map((w) => `${w.schedule} for ${w.duration} (${w.timeZone ?? 'UTC'})`),
      ...(activity.problem ? { problem: activity.problem } : {}),
      liftable: true,
    };
  });
  const order = { active: 0, waiting: 1, ended: 2 };
  return rows.sort((a, b) => order[a.state] - order[b.state] || byCodeUnits(a.name, b.name));
}

/** Pure: the banner's freezes: the active ones only. */
export function bannerFreezes(freezes: readonly Freeze[], now: Date): FreezeRow[] {
  return freezeRows(freezes, now).filter((r) => r.state === 'active');
}
