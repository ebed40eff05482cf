import type { ReleaseRef } from '../../core/links/release-url.js';
import type { Freeze } from '../../api/freeze.js';
import type { HelmRelease } from '../../api/helmrelease.js';
import type { Team } from '../../api/team.js';
import type { FleetFreeze } from '../../core/fleet/fleet-freezes.js';
import type { ReleaseHistory } from '../../core/helm-storage/release-storage.js';
import type { PreviewResult } from '../../core/preview/preview-protocol.js';
import type { HoldingFreeze } from '../../core/release/freeze-match.js';
import type { MutatingCommand } from '../grammar/command.js';
import type { Actor } from './actor.js';
import { buildFreeze, planFreeze, planUnfreeze } from './freeze.js';
import { planReleaseCommand, type Plan } from './plan.js';

/** A release an action changes, with the generation the plan was made from. */
export interface ActionTarget {
  namespace: string;
  name: string;
  chart: string;
  generation: number;
}

/** A mutating command resolved against the cluster and planned, waiting for confirmation. */
export interface PreparedAction {
  command: MutatingCommand;
  /** The releases it changes, with the generation the plan was made from. */
  targets: ActionTarget[];
  plan: Plan;
  /** freeze: the Freeze to create. */
  freeze?: Freeze;
  /** unfreeze: the Freeze to delete, as it was when planned (its scope is what is authorized). */
  unfreeze?: Freeze;
  /** upgrade/rollback --break-glass: the freezes two people let this change through. */
  breakGlass?: string[];
  /** freeze cluster:…: the fleet freeze to write to Redis (plan/fleet-freeze.ts). */
  fleetFreeze?: FleetFreeze;
  /** unfreeze of a fleet freeze: the record to lift, as it was when planned (its clusters are what is authorized). */
  fleetUnfreeze?: FleetFreeze;
}

export type Prepared = { ok: true; action: PreparedAction } | { ok: false; message: string };

/** What authorization looks at: the command, the releases it changes, the Freeze's scope, break-glass. */
export type ActionScope = Pick<PreparedAction, 'command' | 'targets' | 'freeze' | 'unfreeze' | 'breakGlass' | 'fleetFreeze' | 'fleetUnfreeze'>;

/**
 * A mutating command resolved against the cluster, read once, not yet planned: enough to
 * authorize it, and what its plan is made from. The plan is built once, after authorization,
 * with the controller's preview when one is asked for (a preview costs the controller a helm process).
 */
export interface Draft extends ActionScope {
  /** A single-release command's release as read (what a preview is asked for). */
  release?: HelmRelease;
  /** Pure: the plan from the reads above, with the preview when there is one. */
  plan: (preview?: PreviewResult) => Plan;
}

export type Drafted = { ok: true; draft: Draft } | { ok: false; message: string };

/** The draft planned: the action to show, store and confirm (plain data: a plan waits in Redis). */
export function planned(draft: Draft, preview?: PreviewResult): PreparedAction {
  const { plan, release: _release, ...scope } = draft;
  return { ...scope, plan: plan(preview) };
}

/** An action whose plan needs nothing more (freeze, unfreeze) as a draft. */
export function draftOf(action: PreparedAction): Draft {
  const { plan, ...scope } = action;
  return { ...scope, plan: () => plan };
}

export type FreezeCommand = Extract<MutatingCommand, { verb: 'freeze' | 'unfreeze' }>;
export type SingleReleaseCommand = Exclude<MutatingCommand, { verb: 'freeze' | 'unfreeze' }>;

export function isFreezeCommand(command: MutatingCommand): command is FreezeCommand {
  return command.verb === 'freeze' || command.verb === 'unfreeze';
}

export function targetOf(release: HelmRelease): ActionTarget {
  return { namespace: release.metadata.namespace, name: release.metadata.name, chart: release.spec.chart.name, generation: release.metadata.generation ?? 0 };
}

/** Pure: the Freeze a freeze command creates, planned against the releases and Teams read now. */
export function prepareFreeze(
  command: Extract<MutatingCommand, { verb: 'freeze' }>,
  world: { releases: readonly HelmRelease[]; teams: readonly Team[] },
  actor: Actor,
  now: Date,
  timeZone: string,
  name: string,
): PreparedAction {
  const freeze = buildFreeze(command, actor, now, timeZone, name);
  return { command, targets: [], plan: planFreeze(freeze, world.releases, world.teams, now), freeze };
}

/** Pure: lifting a Freeze by name; not doable when there is none. */
export function prepareUnfreeze(
  command: Extract<MutatingCommand, { verb: 'unfreeze' }>,
  world: { releases: readonly HelmRelease[]; teams: readonly Team[]; freezes: readonly Freeze[] },
  now: Date,
): PreparedAction {
  const freeze = world.freezes.find((f) => f.metadata.name === command.name);
  const { plan, goOn } = planUnfreeze(command.name, world.freezes, world.releases, world.teams, now);
  // The releases it lets go are awaited, so the channel hears what then happened to each.
  return { command, targets: goOn.map(targetOf), plan, ...(freeze ? { unfreeze: freeze } : {}) };
}

/** Pure: a command on one release, planned from the release, Helm's history of it and the freezes that hold it. */
export function prepareReleaseCommand(
  command: SingleReleaseCommand,
  release: HelmRelease,
  history: ReleaseHistory,
  holding: readonly HoldingFreeze[] = [],
  preview?: PreviewResult,
): PreparedAction {
  return planned(draftReleaseCommand(command, release, history, holding), preview);
}

/** Pure: a command on one release, resolved and read, its plan still to build (with a preview, if one is asked for). */
export function draftReleaseCommand(
  command: SingleReleaseCommand,
  release: HelmRelease,
  history: ReleaseHistory,
  holding: readonly HoldingFreeze[] = [],
): Draft {
  const breaking = (command.verb === 'upgrade' || command.verb === 'rollback') && command.breakGlass && holding.length > 0;
  return {
    command,
    targets: [targetOf(release)],
    release,
    ...(breaking ? { breakGlass: holding.map((f) => f.name) } : {}),
    plan: (preview) => planReleaseCommand(command, release, history, holding, preview),
  };
}

/**
 * Pure: may the confirmed action still be written to this release as it is now? If its spec
 * changed since the plan was shown, the plan no longer says what would happen: the release is
 * left alone and the line says why.
 */
export function stillAsPlanned(target: ActionTarget, current: HelmRelease | undefined): { ok: true; release: HelmRelease } | { ok: false; line: string } {
  const key = `${target.namespace}/${target.name}`;
  if (!current) return { ok: false, line: `${key}: gone since the plan; nothing done` };
  if (current.metadata.generation !== target.generation)
    return { ok: false, line: `${key}: changed since the plan (generation ${target.generation} → ${current.metadata.generation}); nothing done, ask again` };
  return { ok: true, release: current };
}

/** The one release an action changes, as a link names it (its fleet cluster when the command named one); undefined for several or none. */
export function releaseOfAction(action: Pick<PreparedAction, 'command' | 'targets'>): ReleaseRef | undefined {
  if (action.targets.length !== 1) return undefined;
  const { namespace, name } = action.targets[0]!;
  const cluster = 'cluster' in action.command && typeof action.command.cluster === 'string' ? action.command.cluster : undefined;
  return { namespace, name, ...(cluster ? { cluster } : {}) };
}
