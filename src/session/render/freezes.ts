import type { Freeze } from '../../api/freeze.js';
import type { FleetFreeze } from '../../core/fleet/fleet-freezes.js';
import { freezeActivity } from '../../core/release/freeze-match.js';
import { describeScope } from '../plan/freeze.js';
import { byCodeUnits } from '../../core/release/name-order.js';

/** Pure: `/release freezes`, one line per freeze, active ones first. */
export function renderFreezes(freezes: readonly Freeze[], now: Date): string {
  if (freezes.length === 0) return 'no freezes';
  return freezeLines(freezes, now, (f) => describeScope(f.spec.scope));
}

/** Pure: the fleet freezes (`freeze cluster:…`) under their own heading, each with the clusters it names. */
export function renderFleetFreezes(records: readonly FleetFreeze[], now: Date): string {
  if (records.length === 0) return 'fleet freezes: none';
  const clusters = new Map(records.map((r) => [r.freeze, r.clusters]));
  return `fleet freezes:\n${freezeLines(
    records.map((r) => r.freeze),
    now,
    (f) => `clusters ${clusters.get(f)!.join(', ')}`,
  )}`;
}

function freezeLines(freezes: readonly Freeze[], now: Date, scopeOf: (f: Freeze) => string): string {
  const rows = freezes.map((f) => {
    const activity = freezeActivity(f, now);
    const state = activity.active ? 'ACTIVE' : f.spec.until && Date.parse(f.spec.until) <= now.getTime() ? 'ended' : 'waiting for its window';
    const end = f.spec.until ? ` until ${f.spec.until}` : ' until lifted';
    const windows = f.spec.windows?.length ? ` windows ${f.spec.windows.map((w) => `"${w.schedule}" ${w.duration} ${w.timeZone ?? 'UTC'}`).join(', ')}` : '';
    const by = f.spec.setBy ? ` by ${f.spec.setBy}` : '';
    return { active: activity.active, line: `${f.metadata.name}  ${state}  ${scopeOf(f)}${end}${windows}${by}: ${f.spec.reason}` };
  });
  return rows
    .sort((a, b) => Number(b.active) - Number(a.active) || byCodeUnits(a.line, b.line))
    .map((r) => r.line)
    .join('\n');
}
