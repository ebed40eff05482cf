import type { HelmRelease } from '../../../api/helmrelease.js';
import type { ReleaseHistory } from '../../../core/helm-storage/release-storage.js';
import type { ReleaseTarget } from '../../../core/release/release-target.js';
import type { PassContext } from './context.js';
import type { LifecycleActionName } from '../decide/lifecycle-state.js';
import type { ReleaseActionName } from '../decide/release-state.js';

/** What a pass over one HelmRelease did, for the queue and the ledger. */
export interface ReconcileResult {
  key: string;
  /** 'unchanged': in sync and the status already says so; nothing was written. */
  action:
    | LifecycleActionName
    | ReleaseActionName
    | 'gone'
    | 'values-invalid'
    | 'chart-unavailable'
    | 'refused'
    /** spec.kubeConfig: the target cluster did not answer; tried again after the operator's interval. */
    | 'target-unreachable'
    | 'repository-refused'
    | 'verification-failed'
    | 'wait-for-dependencies'
    /** An active Freeze holds the helm action (stages/freeze-gate.ts). */
    | 'frozen'
    /** Every helm slot of this replica was taken and another replica could start it: back to the queue, nothing written (helm/slot-wait.ts). */
    | 'handed-back'
    | 'unchanged'
    | 'report-drift'
    | 'correct-drift';
  /** Run this release again after this long (a backoff chosen by a decision, not an error). */
  requeueAfterMs?: number;
}

/**
 * Where a pass reads from. 'cache': the informer's copy, read-only. 'cache-until-write': the
 * informer's copy, its first write conditional on that copy's version; Helm's records as new as
 * it. 'server': a GET, and Helm's records as new as that object. 'latest': a GET and the newest
 * records: the follow-up pass after this job's own helm run or unlock, whose writes the object's
 * version does not cover.
 */
export type ReadFrom = 'cache' | 'cache-until-write' | 'server' | 'latest';

/** What every stage after the gate works on. */
export interface Pass {
  /** Acting as the HelmRelease's identity, guarded as its read allows (cached-read.ts). */
  ctx: PassContext;
  release: HelmRelease;
  target: ReleaseTarget;
  key: string;
  /** Helm's records for the target, as read for this pass. */
  history: ReleaseHistory;
}

/** How a stage ends the pass: with a result, or by asking the reconciler for another pass. */
export type PassEnd =
  | { end: 'done'; result: ReconcileResult }
  /** Helm's records changed under this pass (its own helm run, an unlock): decide again from a GET and the newest records. */
  | { end: 'fresh-pass' }
  /** The object changed in a way that needs a whole new pass (a resume). */
  | { end: 'new-pass' }
  /** The finalizer was written: go on from the object the PATCH returned, with the records read meanwhile. */
  | { end: 'go-on-from'; release: HelmRelease; history: ReleaseHistory };

export function done(key: string, action: ReconcileResult['action'], requeueAfterMs?: number): PassEnd {
  return { end: 'done', result: { key, action, ...(requeueAfterMs !== undefined ? { requeueAfterMs } : {}) } };
}

export const FRESH_PASS: PassEnd = { end: 'fresh-pass' };

export function isPassEnd(value: object): value is PassEnd {
  return 'end' in value;
}
