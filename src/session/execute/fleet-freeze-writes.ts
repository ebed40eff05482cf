import type { FleetFreezeStore } from '../../core/fleet/fleet-freezes.js';
import type { Logger } from '../../core/log.js';
import { freezeEndsAt } from '../grammar/flags.js';
import type { Actor } from '../plan/actor.js';
import type { PreparedAction } from '../plan/prepared.js';

/** The fleet freezes' half of the execution path: records in the fleet's keyspace (Redis), audited in the log and the channel. */

export type FleetFreezePort = Pick<FleetFreezeStore, 'list' | 'create' | 'delete'>;

interface FleetFreezeDeps {
  store: FleetFreezePort;
  log: Logger;
  timeZone: string;
}

export async function applyFleetFreeze(deps: FleetFreezeDeps, action: PreparedAction, actor: Actor, now: Date): Promise<{ summary: string; failed?: boolean }> {
  const record = structuredClone(action.fleetFreeze!);
  const name = record.freeze.metadata.name;
  // `--for 5s` counts from the confirmation, not from when the plan was shown.
  if (action.command.verb === 'freeze' && action.command.end)
    record.freeze.spec.until = freezeEndsAt(action.command.end, now, deps.timeZone)
      .toISOString()
      .replace(/\.\d{3}Z$/, 'Z');
  const created = await deps.store.create(record);
  if (!created) return { summary: `a fleet freeze named ${name} exists already; nothing written`, failed: true };
  const { spec } = record.freeze;
  deps.log.info(
    { freeze: name, action: 'freeze', actor: actor.id, channel: actor.channel, reason: spec.reason, clusters: record.clusters, until: spec.until },
    'fleet freeze set',
  );
  const until = spec.until ? ` until ${spec.until}` : ' until lifted';
  return { summary: `fleet freeze ${name} holds clusters ${record.clusters.join(', ')}${until} (unfreeze with /release unfreeze ${name})` };
}

export async function applyFleetUnfreeze(deps: FleetFreezeDeps, action: PreparedAction, actor: Actor): Promise<{ summary: string }> {
  const record = action.fleetUnfreeze!;
  const name = record.freeze.metadata.name;
  const deleted = await deps.store.delete(name);
  deps.log.info(
    { freeze: name, action: 'unfreeze', actor: actor.id, channel: actor.channel, reason: action.command.reason, clusters: record.clusters, deleted },
    'fleet freeze lifted',
  );
  return {
    summary: deleted
      ? `fleet freeze ${name} lifted; clusters ${record.clusters.join(', ')} go on with what it held unless another freeze holds them`
      : `fleet freeze ${name} was already gone`,
  };
}
