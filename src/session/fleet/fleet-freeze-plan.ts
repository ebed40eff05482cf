import type { FleetFreeze } from '../../core/fleet/fleet-freezes.js';
import { fleetFreezeObject } from '../../core/fleet/fleet-freezes.js';
import { clustersMatch } from '../../core/fleet/cluster-match.js';
import { freezeActivity } from '../../core/release/freeze-match.js';
import { checkWindow } from '../../core/release/freeze-windows.js';
import { randomBytes } from 'node:crypto';
import type { MutatingCommand, Scope } from '../grammar/command.js';
import type { Actor } from '../plan/actor.js';
import { buildFreeze, freezeName, windowLines } from '../plan/freeze.js';
import type { Plan } from '../plan/plan.js';
import type { PreparedAction } from '../plan/prepared.js';

/**
 * `/release freeze cluster:prod-*` and lifting one. A fleet freeze is a record in the fleet's
 * keyspace in Redis (core/fleet/fleet-freezes.ts), not a Freeze object of one cluster: every
 * controller it names reads it and holds every helm action. The plan names the clusters of the
 * fleet it takes in now; a cluster that joins later and matches is held too. Pure but for the name's random suffix.
 */

type FreezeCommand = Extract<MutatingCommand, { verb: 'freeze' }>;
type UnfreezeCommand = Extract<MutatingCommand, { verb: 'unfreeze' }>;

export const NEEDS_A_FLEET = 'freeze cluster:… needs a fleet: this bot drives only its own cluster (HELMCREW_FLEET_KEYS_DIR is not set)';

/** A new fleet freeze's name: `cluster-prod-7f3a`. */
export function newFleetFreezeName(scope: Scope): string {
  return freezeName(scope, randomBytes(2).toString('hex'));
}

/** Which of the fleet's clusters the patterns take in, sorted. */
export function clustersTakenIn(patterns: readonly string[], clusters: readonly string[]): string[] {
  return [...new Set(clusters)].filter((c) => clustersMatch(patterns, c)).sort();
}

const takenInLine = (patterns: readonly string[], clusters: readonly string[]): string => {
  const now = clustersTakenIn(patterns, clusters);
  return now.length
    ? `takes in ${now.length} cluster${now.length === 1 ? '' : 's'} of the fleet now: ${now.join(', ')}`
    : `takes in no cluster of the fleet now (known: ${[...new Set(clusters)].sort().join(', ') || 'none'}); a cluster that joins and matches is held`;
};

/** The fleet freeze a `freeze cluster:<glob>` writes, planned against the clusters the fleet knows now. */
export function prepareFleetFreeze(
  command: FreezeCommand,
  clusters: readonly string[],
  actor: Actor,
  now: Date,
  timeZone: string,
  name: string,
): PreparedAction {
  if (command.scope.kind !== 'clusters') throw new Error('prepareFleetFreeze: not a cluster scope');
  const built = buildFreeze(command, actor, now, timeZone, name);
  const freeze = fleetFreezeObject(name, { ...built.spec }, built.metadata);
  const record: FleetFreeze = { clusters: [command.scope.clusters], freeze };
  return { command, targets: [], plan: planFleetFreeze(record, clusters, now), fleetFreeze: record };
}

export function planFleetFreeze(record: FleetFreeze, clusters: readonly string[], now: Date): Plan {
  const { freeze } = record;
  const on = `clusters ${record.clusters.join(', ')}`;
  const title = `freeze ${on} (${freeze.metadata.name})`;
  const badWindows = (freeze.spec.windows ?? []).flatMap((w) => {
    const check = checkWindow(w);
    return check.ok ? [] : [`${check.message}; write a cron like "0 18 * * FRI" (minute hour day month weekday)`];
  });
  if (badWindows.length > 0) return { title, lines: badWindows, warnings: [], doable: false };
  const lines = [
    `writes fleet freeze ${freeze.metadata.name}: the controller of each cluster matching ${record.clusters.join(', ')} runs no helm action (install, upgrade, rollback, uninstall, remediation, test) for any of its releases`,
    takenInLine(record.clusters, clusters),
    ...windowLines(freeze, now),
    `specs are kept: what changes meanwhile is applied when the ${freeze.spec.windows?.length ? 'window closes' : 'freeze ends'}`,
    freeze.spec.until ? `ends by itself at ${freeze.spec.until}` : `until lifted: /release unfreeze ${freeze.metadata.name}`,
    `reason: ${freeze.spec.reason}`,
  ];
  return { title, lines, warnings: [], doable: true };
}

/** Lifting a fleet freeze by name (found among the fleet's records). */
export function prepareFleetUnfreeze(command: UnfreezeCommand, record: FleetFreeze, clusters: readonly string[], now: Date): PreparedAction {
  const { freeze } = record;
  const active = freezeActivity(freeze, now).active;
  const lines = [
    `lifts fleet freeze ${freeze.metadata.name} on clusters ${record.clusters.join(', ')} (${freeze.spec.reason}${freeze.spec.setBy ? `, set by ${freeze.spec.setBy}` : ''})`,
    takenInLine(record.clusters, clusters),
    active
      ? "each of those clusters' controllers goes on with the releases it held, unless another freeze holds them"
      : 'it holds nothing now (not active); the record is removed',
  ];
  return { command, targets: [], plan: { title: `unfreeze ${freeze.metadata.name} (fleet)`, lines, warnings: [], doable: true }, fleetUnfreeze: record };
}
