import { readRollbackRequest, readSuspension, type RollbackRequest } from '../../api/annotations.js';
import type { HelmRelease } from '../../api/helmrelease.js';
import { ConditionType } from '../../api/vocabulary.js';
import type { ReleaseHistory, StoredRelease } from '../helm-storage/release-storage.js';
import { canonicalJson } from './values.js';

/**
 * Pure decisions about chat-made intent on a suspended release: is a rollback asked for and not
 * done yet, which revision does it go to, and does status already show the suspension.
 */

/** A rollback request whose id the controller has not handled yet. */
export function pendingRollback(release: HelmRelease): RollbackRequest | undefined {
  const request = readRollbackRequest(release.metadata.annotations);
  const record = release.status?.rollback;
  if (!request) return undefined;
  if (request.id !== record?.requestId) return request;
  // Started but never finished (the controller died mid-rollback): go on to the revision chosen
  // then, since "previous" counted from the new revision would be the one we left.
  if (record.inProgress && record.toRevision !== undefined) return { id: request.id, revision: record.toRevision };
  return undefined;
}

export type RollbackChoice = { ok: true; from: StoredRelease; to: StoredRelease } | { ok: false; message: string };

/**
 * "previous" is the newest revision before the deployed one that was itself deployed once
 * (superseded), so failed attempts are skipped — or, when the newest revision is a failed
 * upgrade, the deployed one. A named revision must be in Helm's history.
 */
export function chooseRollbackRevision(history: ReleaseHistory, request: RollbackRequest): RollbackChoice {
  const { latest, deployed } = history;
  if (latest?.status.startsWith('pending-'))
    return { ok: false, message: `revision ${latest.revision} is ${latest.status}; another helm operation holds the release` };
  if (!deployed) return { ok: false, message: 'no revision is deployed, so there is nothing to roll back from' };
  if (request.revision === undefined) {
    // After a failed upgrade, as with `helm rollback` itself, "previous" is the last good revision:
    // re-applying it repairs what the failed upgrade half-changed.
    if (latest && latest.revision > deployed.revision && latest.status === 'failed') return { ok: true, from: latest, to: deployed };
    const previous = history.releases.find((r) => r.revision < deployed.revision && r.status === 'superseded');
    return previous
      ? { ok: true, from: deployed, to: previous }
      : { ok: false, message: `revision ${deployed.revision} is the first deployed revision; there is no earlier one to go back to` };
  }
  if (!Number.isInteger(request.revision) || request.revision < 1) return { ok: false, message: 'the requested rollback target is not a revision number' };
  const target = history.releases.find((r) => r.revision === request.revision);
  if (!target) {
    const known = history.releases
      .map((r) => r.revision)
      .sort((a, b) => a - b)
      .join(', ');
    return { ok: false, message: `revision ${request.revision} is not in the release history (revisions kept: ${known || 'none'})` };
  }
  if (target.status === 'uninstalled' || target.status.startsWith('pending-'))
    return { ok: false, message: `revision ${request.revision} is ${target.status} and cannot be rolled back to` };
  return { ok: true, from: deployed, to: target };
}

/** Does status already show this suspension (condition and record)? Then there is nothing to write. */
export function suspensionRecorded(release: HelmRelease): boolean {
  const condition = release.status?.conditions?.find((c) => c.type === ConditionType.Suspended);
  if (condition?.status !== 'True') return false;
  const wanted = readSuspension(release.metadata.annotations);
  // Key order is not compared: the API server returns status objects with their keys sorted.
  return canonicalJson(wanted ?? null) === canonicalJson(release.status?.suspension ?? null);
}

/** The spec no longer suspends the release but status still says it is suspended. */
export function resumedButNotRecorded(release: HelmRelease): boolean {
  if (release.spec.suspend) return false;
  return release.status?.conditions?.some((c) => c.type === ConditionType.Suspended) === true || release.status?.suspension !== undefined;
}
