import type { HelmRelease } from '../../api/helmrelease.js';
import type { ReleaseHistory } from '../../core/helm-storage/release-storage.js';
import type { PreviewResult } from '../../core/preview/preview-protocol.js';
import type { MutatingCommand } from '../grammar/command.js';
import { selectFreeze, selectUnfreeze } from './freeze.js';
import { planFreeze, planReleaseCommand, type Plan } from './plan.js';

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
  /** Set for freeze: the id every suspended release is marked with. */
  freezeId?: string;
}

export type Prepared = { ok: true; action: PreparedAction } | { ok: false; message: string };

export type FreezeCommand = Extract<MutatingCommand, { verb: 'freeze' | 'unfreeze' }>;
export type SingleReleaseCommand = Exclude<MutatingCommand, { verb: 'freeze' | 'unfreeze' }>;

export function isFreezeCommand(command: MutatingCommand): command is FreezeCommand {
  return command.verb === 'freeze' || command.verb === 'unfreeze';
}

export function targetOf(release: HelmRelease): ActionTarget {
  return { namespace: release.metadata.namespace, name: release.metadata.name, chart: release.spec.chart.name, generation: release.metadata.generation ?? 0 };
}

/** Pure: a freeze or unfreeze over the releases read in its scope. `freezeId` marks what a freeze suspends. */
export function prepareFreeze(command: FreezeCommand, releases: readonly HelmRelease[], freezeId: string): PreparedAction {
  const scopeText = command.scope.kind === 'all' ? 'every namespace' : `namespace ${command.scope.namespace}`;
  const freeze = selectFreeze(releases, command.scope);
  const affected = command.verb === 'freeze' ? freeze.suspend : selectUnfreeze(releases, command.scope);
  const plan = planFreeze(command.verb, scopeText, affected, command.verb === 'freeze' ? freeze.alreadySuspended : [], command.reason);
  const action: PreparedAction = { command, targets: affected.map(targetOf), plan };
  if (command.verb === 'freeze') action.freezeId = freezeId;
  return action;
}

/** Pure: a command on one release, planned from the release and Helm's history of it. */
export function prepareReleaseCommand(command: SingleReleaseCommand, release: HelmRelease, history: ReleaseHistory, preview?: PreviewResult): PreparedAction {
  return { command, targets: [targetOf(release)], plan: planReleaseCommand(command, release, history, preview) };
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
