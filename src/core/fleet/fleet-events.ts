/**
 * The Events about a release that an agent answers the hub with (the `events` question,
 * fleet-query.ts): the audit of people's actions and the steps of proposals — what a release page's
 * timeline shows of Events — and nothing else of what is recorded on it. Pure.
 */
export interface FleetEventRecord {
  reason: string;
  message: string;
  at: string;
  type?: string;
}

/** At most this many Events leave the cluster for one release, newest first (the web keeps 20 people's actions a release too). */
export const FLEET_EVENTS_MAX = 20;
/** An audit line is short; anything longer is cut, so one answer stays small. */
const MESSAGE_MAX = 2_000;

const TIMELINE_REASON = /^(ActionRequested|ActionRefused|Proposal[A-Za-z]*)$/;

/** Pure: the timeline's Events among `events`, newest first, at most `max`, each message cut to a bound. */
export function eventsForFleet(events: readonly FleetEventRecord[], max = FLEET_EVENTS_MAX): FleetEventRecord[] {
  return events
    .filter((e) => TIMELINE_REASON.test(e.reason))
    .sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0))
    .slice(0, max)
    .map((e) => ({ reason: e.reason, message: e.message.slice(0, MESSAGE_MAX), at: e.at, ...(e.type ? { type: e.type } : {}) }));
}
