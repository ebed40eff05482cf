import { FREEZE_ANNOTATION } from '../../api/annotations.js';
import type { HelmRelease } from '../../api/helmrelease.js';
import type { Scope } from '../grammar/command.js';

/**
 * Pure: what a freeze suspends and what an unfreeze resumes. A freeze marks every release it
 * suspends with its id; releases already suspended are left as they are and not marked, so
 * unfreeze (which resumes only marked releases) restores exactly the state before.
 */

export function inScope(release: HelmRelease, scope: Scope): boolean {
  return scope.kind === 'all' || release.metadata.namespace === scope.namespace;
}

export function selectFreeze(releases: readonly HelmRelease[], scope: Scope): { suspend: HelmRelease[]; alreadySuspended: HelmRelease[] } {
  const inside = releases.filter((r) => inScope(r, scope) && !r.metadata.deletionTimestamp);
  return { suspend: inside.filter((r) => !r.spec.suspend), alreadySuspended: inside.filter((r) => r.spec.suspend) };
}

export function selectUnfreeze(releases: readonly HelmRelease[], scope: Scope): HelmRelease[] {
  return releases.filter((r) => inScope(r, scope) && r.spec.suspend && !!r.metadata.annotations?.[FREEZE_ANNOTATION]);
}
