import type { Freeze, FreezeScope } from '../../api/freeze.js';
import type { Team } from '../../api/team.js';
import { checkWindow, nextWindowStart, openWindow } from './freeze-windows.js';
import { teamOwns, type ReleaseFacts } from './team-releases.js';
import { byCodeUnits } from './name-order.js';

/**
 * Pure: which active Freezes hold a release. The controller asks before every helm action, the
 * bot to plan; both hand in the Freezes and Teams they hold and the time.
 */

export interface FreezeActivity {
  active: boolean;
  /** When the answer may change next (until passes, a window opens or closes); none: never by itself. */
  nextChange?: Date;
  /** A window that could not be computed: it counts as open (a freeze fails closed). */
  problem?: string;
}

export function freezeActivity(freeze: Freeze, now: Date): FreezeActivity {
  if (freeze.metadata.deletionTimestamp) return { active: false };
  const until = freeze.spec.until ? new Date(freeze.spec.until) : undefined;
  if (until && !Number.isNaN(until.getTime()) && now.getTime() >= until.getTime()) return { active: false };
  const ending = until && !Number.isNaN(until.getTime()) ? until : undefined;
  const windows = freeze.spec.windows ?? [];
  if (windows.length === 0) return { active: true, ...(ending ? { nextChange: ending } : {}) };
  const problems: string[] = [];
  const ends: number[] = [];
  const starts: number[] = [];
  for (const window of windows) {
    const check = checkWindow(window);
    if (!check.ok) {
      problems.push(check.message);
      continue;
    }
    const open = openWindow(window, now);
    if (open) ends.push(open.end.getTime());
    else {
      const next = nextWindowStart(window, now);
      if (next) starts.push(next.getTime());
    }
  }
  if (problems.length > 0) return { active: true, problem: problems.join('; '), ...(ending ? { nextChange: ending } : {}) };
  const change = ends.length > 0 ? Math.max(...ends) : starts.length > 0 ? Math.min(...starts) : undefined;
  const nextChange = change !== undefined && (!ending || change < ending.getTime()) ? new Date(change) : ends.length > 0 ? ending : undefined;
  return { active: ends.length > 0, ...(nextChange ? { nextChange } : {}) };
}

/** Does the scope take in this release? `all`, or every field given matches (each lists alternatives). */
export function scopeCovers(scope: FreezeScope, release: ReleaseFacts, teams: readonly Team[]): boolean {
  if (scope.all) return true;
  if (!scope.teams && !scope.namespaces && !scope.charts) return false;
  if (scope.namespaces && !scope.namespaces.some((ns) => ns === release.namespace || ns === release.targetNamespace)) return false;
  if (scope.charts && !scope.charts.includes(release.chart)) return false;
  if (scope.teams && !scope.teams.some((name) => teams.some((team) => team.metadata.name === name && teamOwns(team, release)))) return false;
  return true;
}

export interface HoldingFreeze {
  name: string;
  reason: string;
  setBy?: string;
  until?: string;
  problem?: string;
}

/** The active freezes whose scope covers the release, by name. */
export function freezesHolding(release: ReleaseFacts, freezes: readonly Freeze[], teams: readonly Team[], now: Date): HoldingFreeze[] {
  const holding: HoldingFreeze[] = [];
  for (const freeze of freezes) {
    if (!scopeCovers(freeze.spec.scope, release, teams)) continue;
    const activity = freezeActivity(freeze, now);
    if (!activity.active) continue;
    holding.push({
      name: freeze.metadata.name,
      reason: freeze.spec.reason,
      ...(freeze.spec.setBy ? { setBy: freeze.spec.setBy } : {}),
      ...(freeze.spec.until ? { until: freeze.spec.until } : {}),
      ...(activity.problem ? { problem: activity.problem } : {}),
    });
  }
  return holding.sort((a, b) => byCodeUnits(a.name, b.name));
}

/** The earliest time any freeze's activity may change: the controller wakes then to let held releases go. */
export function nextFreezeChange(freezes: readonly Freeze[], now: Date): Date | undefined {
  let next: number | undefined;
  for (const freeze of freezes) {
    const change = freezeActivity(freeze, now).nextChange?.getTime();
    if (change !== undefined && (next === undefined || change < next)) next = change;
  }
  return next === undefined ? undefined : new Date(next);
}

/** One line naming the freezes, for a condition message, an Event and a plan. */
export function describeHolding(holding: readonly HoldingFreeze[]): string {
  return holding
    .map((f) => {
      const who = f.setBy ? `, set by ${f.setBy}` : '';
      const until = f.until ? `, until ${f.until}` : '';
      const problem = f.problem ? ` [${f.problem}]` : '';
      return `freeze ${f.name} (${f.reason}${who}${until})${problem}`;
    })
    .join('; ');
}
