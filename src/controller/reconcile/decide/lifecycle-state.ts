import type { HelmRelease } from '../../../api/helmrelease.js';
import { FINALIZER } from '../../../api/vocabulary.js';
import type { RollbackRequest } from '../../../api/annotations.js';
import type { ReleaseHistory, StoredRelease } from '../../../core/helm-storage/release-storage.js';
import { pendingRollback, resumedButNotRecorded, suspensionRecorded } from '../../../core/release/rollback-decision.js';
import { assertNever } from './assert-never.js';
import { determineOwnership, type Ownership } from './ownership.js';

/**
 * Pure decisions about the object's lifecycle: deletion, finalizer, suspension and ownership come
 * before anything that needs the chart or values (release-state.ts decides those). A release owned
 * by another HelmRelease is never upgraded, unlocked or uninstalled.
 */

export type LifecycleState =
  | { kind: 'deleting-installed'; release: StoredRelease }
  | { kind: 'deleting-suspended' }
  | { kind: 'deleting-not-installed' }
  /** The stored release belongs to someone else: let the object go, leave the release alone. */
  | { kind: 'deleting-not-ours'; ownership: Ownership }
  | { kind: 'not-ours'; ownership: Ownership }
  | { kind: 'deleted' }
  | { kind: 'needs-finalizer' }
  /** spec.suspend holds it and status does not say so yet. */
  | { kind: 'suspended' }
  | { kind: 'suspension-recorded' }
  /** Suspended, and a rollback of a release this HelmRelease owns is asked for. */
  | { kind: 'rollback-requested'; rollback: RollbackRequest }
  | { kind: 'resumed' }
  | { kind: 'active' };

/** Pure: an object that lives and lacks helmcrew's finalizer gets it first, whatever the history. */
export function needsFinalizer(release: HelmRelease): boolean {
  return !release.metadata.deletionTimestamp && !(release.metadata.finalizers?.includes(FINALIZER) ?? false);
}

export function determineLifecycle(release: HelmRelease, history: ReleaseHistory): LifecycleState {
  const hasFinalizer = release.metadata.finalizers?.includes(FINALIZER) ?? false;
  const ownership = determineOwnership(release, history);
  // A release being handed over is not ours until its upgrade: deleting this HelmRelease before
  // then leaves it installed, and no rollback is run on it.
  const ours = ownership.kind === 'free' || ownership.kind === 'ours';
  if (release.metadata.deletionTimestamp) {
    if (!hasFinalizer) return { kind: 'deleted' };
    if (release.spec.suspend) return { kind: 'deleting-suspended' };
    if (!ours) return { kind: 'deleting-not-ours', ownership };
    const installed = history.latest && history.latest.status !== 'uninstalled' ? history.latest : undefined;
    return installed ? { kind: 'deleting-installed', release: installed } : { kind: 'deleting-not-installed' };
  }
  if (!hasFinalizer) return { kind: 'needs-finalizer' };
  if (release.spec.suspend) {
    // A requested rollback comes first (status is written with its outcome); it is only ever run
    // on a release this HelmRelease owns.
    const rollback = ours ? pendingRollback(release) : undefined;
    if (rollback) return { kind: 'rollback-requested', rollback };
    return suspensionRecorded(release) ? { kind: 'suspension-recorded' } : { kind: 'suspended' };
  }
  if (!ours && ownership.kind !== 'handover') return { kind: 'not-ours', ownership };
  if (resumedButNotRecorded(release)) return { kind: 'resumed' };
  return { kind: 'active' };
}

/** What the object's lifecycle (deletion, finalizer, suspension, ownership) calls for before any spec is reconciled, with its data. */
export type LifecycleAction =
  | { kind: 'uninstall'; release: StoredRelease }
  | { kind: 'add-finalizer' }
  /** `notOurs`: the release belongs to someone else; the Event says it is left installed. */
  | { kind: 'remove-finalizer'; notOurs?: Ownership }
  | { kind: 'rollback'; rollback: RollbackRequest }
  | { kind: 'record-suspension' }
  | { kind: 'record-resume' }
  | { kind: 'report-suspended' }
  | { kind: 'report-not-ours'; ownership: Ownership }
  | { kind: 'nothing' };

export type LifecycleActionName = LifecycleAction['kind'];

/** Pure: the lifecycle's action, or 'continue': on to the spec. */
export function nextLifecycleAction(state: LifecycleState): LifecycleAction | { kind: 'continue' } {
  switch (state.kind) {
    case 'deleting-installed':
      return { kind: 'uninstall', release: state.release };
    case 'deleting-not-ours':
      return { kind: 'remove-finalizer', notOurs: state.ownership };
    case 'deleting-suspended':
    case 'deleting-not-installed':
      return { kind: 'remove-finalizer' };
    case 'deleted':
      return { kind: 'nothing' };
    case 'needs-finalizer':
      return { kind: 'add-finalizer' };
    case 'rollback-requested':
      return { kind: 'rollback', rollback: state.rollback };
    case 'suspended':
      return { kind: 'record-suspension' };
    case 'suspension-recorded':
      return { kind: 'report-suspended' };
    case 'resumed':
      return { kind: 'record-resume' };
    case 'not-ours':
      return { kind: 'report-not-ours', ownership: state.ownership };
    case 'active':
      return { kind: 'continue' };
    default:
      return assertNever(state);
  }
}
