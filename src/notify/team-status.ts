import type { Condition } from '../api/helmrelease-status.js';
import type { ChannelStatus, TeamStatus } from '../api/team.js';
import { ConditionType, TeamReason } from '../api/vocabulary.js';

export type DeliveryOutcome = { channel: string; ok: true; at: Date } | { channel: string; ok: false; code: string; message: string; at: Date };

const MAX_ERROR = 1024;

/**
 * A Team's status after one delivery outcome on one of its channels. Pure. A success records the
 * delivery and clears that channel's error; a permanent failure records code and message until a
 * later success. Ready is False while any channel has an error, naming each.
 */
export function nextTeamStatus(current: TeamStatus | undefined, outcome: DeliveryOutcome, channelsInSpec: string[], generation?: number): TeamStatus {
  const at = outcome.at.toISOString();
  const known = new Map((current?.channels ?? []).map((c) => [c.channel, c]));
  const before = known.get(outcome.channel) ?? { channel: outcome.channel };
  const after: ChannelStatus = outcome.ok
    ? { channel: outcome.channel, lastDeliveryAt: at, ...(before.warning ? { warning: before.warning } : {}) }
    : { ...before, errorCode: outcome.code, lastError: outcome.message.slice(0, MAX_ERROR), lastErrorAt: at };
  known.set(outcome.channel, after);
  // Only channels still in the spec are reported, in spec order.
  const channels = channelsInSpec.flatMap((name) => {
    const entry = known.get(name);
    return entry ? [entry] : [];
  });
  const failing = channels.filter((c) => c.errorCode);
  const previous = current?.conditions?.find((c) => c.type === ConditionType.Ready);
  const ready: Condition = failing.length
    ? {
        type: ConditionType.Ready,
        status: 'False',
        reason: TeamReason.DeliveryFailed,
        message: failing
          .map((c) => `${c.channel}: ${c.errorCode} (${c.lastError})`)
          .join('; ')
          .slice(0, MAX_ERROR),
        lastTransitionTime: at,
      }
    : { type: ConditionType.Ready, status: 'True', reason: TeamReason.Delivering, message: 'Every channel delivers', lastTransitionTime: at };
  if (previous && previous.status === ready.status) ready.lastTransitionTime = previous.lastTransitionTime;
  if (generation !== undefined) ready.observedGeneration = generation;
  return {
    ...current,
    conditions: [...(current?.conditions ?? []).filter((c) => c.type !== ConditionType.Ready), ready],
    ...(outcome.ok ? { lastDeliveryAt: at } : {}),
    channels,
  };
}

/** A Team's status with one channel's template warning set (or cleared with undefined). Pure. */
export function withChannelWarning(current: TeamStatus | undefined, channel: string, warning: string | undefined): TeamStatus {
  const channels = [...(current?.channels ?? [])];
  const index = channels.findIndex((c) => c.channel === channel);
  const before = index >= 0 ? channels[index]! : { channel };
  const { warning: _old, ...rest } = before;
  const after: ChannelStatus = warning ? { ...rest, warning: warning.slice(0, MAX_ERROR) } : rest;
  if (index >= 0) channels[index] = after;
  else channels.push(after);
  return { ...current, channels };
}
