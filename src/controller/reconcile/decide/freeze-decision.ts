import type { HelmRelease } from '../../../api/helmrelease.js';
import { readBreakGlass } from '../../../api/annotations.js';
import { ConditionType } from '../../../api/vocabulary.js';
import type { HoldingFreeze } from '../../../core/release/freeze-match.js';
import { assertNever } from './assert-never.js';
import type { LifecycleActionName } from './lifecycle-state.js';
import type { ReleaseActionName } from './release-state.js';

/**
 * Pure: may the action a pass decided on run while Freezes are active? Every decided action
 * passes through `helmActionOf` (an exhaustive switch, so a new action must say whether it runs
 * helm) and then `decideFreeze`.
 */

/** The helm actions a freeze holds. */
export type HeldAction = 'install' | 'upgrade' | 'test' | 'rollback' | 'uninstall' | 'remediation';

/** Pure: the helm action behind a decided action, or undefined when it only reads or writes status. */
export function helmActionOf(action: ReleaseActionName | LifecycleActionName): HeldAction | undefined {
  switch (action) {
    case 'install':
    case 'reinstall':
      return 'install';
    case 'upgrade':
      return 'upgrade';
    case 'test':
      return 'test';
    case 'rollback':
      return 'rollback';
    case 'uninstall':
      return 'uninstall';
    case 'remediate-rollback':
    case 'remediate-uninstall':
      return 'remediation';
    // Unlocking marks a dead helm's record failed; it runs no helm, and what follows is decided again.
    case 'unlock':
    case 'wait-for-lock':
    case 'report-failure':
    case 'wait-for-retry':
    case 'report-ready':
    case 'add-finalizer':
    case 'remove-finalizer':
    case 'record-suspension':
    case 'record-resume':
    case 'report-suspended':
    case 'report-not-ours':
    case 'nothing':
      return undefined;
    default:
      return assertNever(action);
  }
}

export type FreezeDecision =
  /** Nothing holds it and nothing is recorded: on with the pass. */
  | { kind: 'go' }
  /** Freezes hold this helm action: record Frozen (once) and stop. */
  | { kind: 'hold'; holding: HoldingFreeze[]; action: HeldAction; first: boolean }
  /** Freezes not listed yet (a controller starting): wait rather than act blind. */
  | { kind: 'wait-for-freezes' }
  /** Frozen is recorded but nothing holds it now: clear it, then go on. */
  | { kind: 'release' }
  /** Two people broke the glass for this generation through every freeze that holds it. */
  | { kind: 'break-glass'; holding: HoldingFreeze[]; by: string; approvedBy: string };

export function isFrozenRecorded(release: HelmRelease): boolean {
  return release.status?.conditions?.some((c) => c.type === ConditionType.Frozen && c.status === 'True') ?? false;
}

export function decideFreeze(release: HelmRelease, action: HeldAction | undefined, holding: HoldingFreeze[] | undefined): FreezeDecision {
  const recorded = isFrozenRecorded(release);
  if (action === undefined || (holding !== undefined && holding.length === 0)) return recorded ? { kind: 'release' } : { kind: 'go' };
  if (holding === undefined) return { kind: 'wait-for-freezes' };
  const glass = readBreakGlass(release.metadata.annotations);
  if (glass && glass.generation === release.metadata.generation && holding.every((f) => glass.freezes.includes(f.name))) {
    return { kind: 'break-glass', holding, by: glass.by, approvedBy: glass.approvedBy };
  }
  return { kind: 'hold', holding, action, first: !recorded };
}
