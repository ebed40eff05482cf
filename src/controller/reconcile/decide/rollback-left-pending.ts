import type { StoredRelease } from '../../../core/helm-storage/release-storage.js';

/**
 * Pure: the record a failed `helm rollback` of this pass left pending-rollback, if any. helm writes
 * the rollback's revision as pending-rollback before the pre-rollback hooks, and a failing hook
 * ends helm without marking it. helm has exited and the queue runs no other pass of the release,
 * so nothing will finish it: marked failed at once (as a stale lock is, release-state.ts
 * isStaleLock) instead of holding the release for its timeout plus the grace period.
 */
export function pendingLeftByRollback(newestBefore: number | undefined, latestAfter: StoredRelease | undefined): StoredRelease | undefined {
  if (latestAfter?.status !== 'pending-rollback') return undefined;
  return latestAfter.revision > (newestBefore ?? 0) ? latestAfter : undefined;
}
