import { FREEZE_REPORTED_ANNOTATION } from '../../api/annotations.js';
import type { Freeze } from '../../api/freeze.js';
import type { HelmRelease } from '../../api/helmrelease.js';
import type { Team } from '../../api/team.js';
import { ConditionType } from '../../api/vocabulary.js';
import { freezesHolding } from '../../core/release/freeze-match.js';
import { releaseFacts } from '../../core/release/team-releases.js';
import { messageRefOf } from './freeze.js';
import { byCodeUnits } from '../../core/release/name-order.js';

/**
 * Pure: the decisions behind reporting a freeze's end in its channel message when nobody lifted it
 * from chat (`until` passed, or the Freeze was deleted with kubectl). The sweep that reads and
 * writes is session/execute/freeze-reports.ts.
 */

const keyOf = (r: HelmRelease) => `${r.metadata.namespace}/${r.metadata.name}`;

/** What the sweep remembers of a freeze it may have to report: enough to report it once the object is gone. */
export interface WatchedFreeze {
  uid: string;
  name: string;
  reason: string;
  setBy?: string;
  channel: string;
  ts: string;
}

/** A Freeze set from Slack whose end is not reported yet: remembered by the sweep. */
export function watchedOf(freeze: Freeze): WatchedFreeze | undefined {
  const ref = messageRefOf(freeze);
  const uid = freeze.metadata.uid;
  if (!ref || !uid || freeze.metadata.annotations?.[FREEZE_REPORTED_ANNOTATION]) return undefined;
  return { uid, name: freeze.metadata.name, reason: freeze.spec.reason, ...(freeze.spec.setBy ? { setBy: freeze.spec.setBy } : {}), ...ref };
}

/**
 * Ended by itself: `until` has passed. (A window closing is not an end: the freeze holds again at
 * the next one.) Expired Freezes are kept, as the controller keeps them: `/release freezes` shows
 * them as ended until someone deletes them.
 */
export function expired(freeze: Freeze, now: Date): boolean {
  const until = freeze.spec.until ? Date.parse(freeze.spec.until) : Number.NaN;
  return !Number.isNaN(until) && now.getTime() >= until;
}

/** The releases whose Frozen condition names this freeze right now. */
export function heldNow(name: string, releases: readonly HelmRelease[]): string[] {
  return releases
    .filter((r) => r.status?.conditions?.some((c) => c.type === ConditionType.Frozen && c.status === 'True' && c.message.includes(`freeze ${name} (`)))
    .map(keyOf);
}

/**
 * What the freeze's end let go: the releases it held (seen by the sweep, or still marked) that no
 * other active freeze holds now, the same test `/release unfreeze` plans with.
 */
export function letGo(
  ended: string,
  held: Iterable<string>,
  releases: readonly HelmRelease[],
  freezes: readonly Freeze[],
  teams: readonly Team[],
  now: Date,
): HelmRelease[] {
  const keys = new Set(held);
  const others = freezes.filter((f) => f.metadata.name !== ended);
  return releases
    .filter((r) => keys.has(keyOf(r)))
    .filter((r) => freezesHolding(releaseFacts(r), others, teams, now).length === 0)
    .sort((a, b) => byCodeUnits(keyOf(a), keyOf(b)));
}
