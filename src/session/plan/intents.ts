import {
  BREAK_GLASS_ANNOTATION,
  DRIFT_CORRECTION_REQUEST_ANNOTATION,
  FORCE_AT_ANNOTATION,
  ROLLBACK_REQUEST_ANNOTATION,
  ROLLBACK_TO_ANNOTATION,
  SUSPENSION_ANNOTATION,
  TEST_REQUEST_ANNOTATION,
  type BreakGlassRecord,
  type SuspensionRecord,
} from '../../api/annotations.js';
import type { IntentPatch } from '../../core/kube/helmrelease-api.js';
import type { Actor } from './actor.js';

/**
 * The intent the bot and the terminal write to the API server, as JSON merge patches on the
 * HelmRelease. Pure; the controller acts on them. `null` removes a key in a merge patch.
 */

export function suspensionRecord(actor: Actor, reason: string | undefined, now: Date): SuspensionRecord {
  return {
    by: actor.id,
    at: now.toISOString(),
    ...(reason ? { reason } : {}),
    ...(actor.channel ? { channel: actor.channel } : {}),
  };
}

export function suspendPatch(actor: Actor, reason: string | undefined, now: Date): IntentPatch {
  return {
    metadata: { annotations: { [SUSPENSION_ANNOTATION]: JSON.stringify(suspensionRecord(actor, reason, now)) } },
    spec: { suspend: true },
  };
}

/** Back to the declared spec; a pending rollback request is dropped with the suspension. */
export function resumePatch(): IntentPatch {
  return {
    metadata: {
      annotations: { [SUSPENSION_ANNOTATION]: null, [ROLLBACK_REQUEST_ANNOTATION]: null, [ROLLBACK_TO_ANNOTATION]: null },
    },
    spec: { suspend: false },
  };
}

/** Suspends (so nothing undoes it) and asks the controller for `helm rollback`, once per request id. */
export function rollbackPatch(actor: Actor, reason: string | undefined, revision: number | undefined, requestId: string, now: Date): IntentPatch {
  const suspend = suspendPatch(actor, reason ?? `rollback to ${revision ?? 'the previous revision'}`, now);
  return {
    metadata: {
      annotations: {
        ...suspend.metadata!.annotations,
        [ROLLBACK_REQUEST_ANNOTATION]: requestId,
        [ROLLBACK_TO_ANNOTATION]: revision === undefined ? 'previous' : String(revision),
      },
    },
    spec: suspend.spec,
  };
}

/** Asks the controller to put drifted objects back now, once per request id (status.lastDriftCorrection). */
export function correctDriftPatch(requestId: string): IntentPatch {
  return { metadata: { annotations: { [DRIFT_CORRECTION_REQUEST_ANNOTATION]: requestId } } };
}

/** Asks the controller for `helm test` of the deployed revision, once per request id (status.lastTest.requestId). */
export function testPatch(requestId: string): IntentPatch {
  return { metadata: { annotations: { [TEST_REQUEST_ANNOTATION]: requestId } } };
}

/** One forced install or upgrade (helmcrew.dev/forceAt), handled once: the controller records the value in status.lastHandledForceAt. */
export function retryPatch(requestId: string): IntentPatch {
  return { metadata: { annotations: { [FORCE_AT_ANNOTATION]: requestId } } };
}

export function upgradePatch(version: string): IntentPatch {
  return { spec: { chart: { version } } };
}

/**
 * Break-glass: the change and the record letting exactly the generation it makes through the named
 * freezes, in one patch made conditional on the version read (`resourceVersion`), so the generation
 * it names is the one this patch produces and no other writer's.
 */
export function withBreakGlass(patch: IntentPatch, record: BreakGlassRecord, resourceVersion: string): IntentPatch {
  return {
    ...patch,
    metadata: { ...patch.metadata, resourceVersion, annotations: { ...patch.metadata?.annotations, [BREAK_GLASS_ANNOTATION]: JSON.stringify(record) } },
  };
}
