import type { HelmRelease } from '../../../api/helmrelease.js';
import { ReleaseEvent } from '../../../api/vocabulary.js';
import type { StoredRelease } from '../../../core/helm-storage/release-storage.js';
import { apiErrorMessage, isForbidden } from '../../../core/kube/errors.js';
import type { DesiredRelease } from '../../../core/release/desired-release.js';
import { checkedStatus, inSyncStatus, lockedStatus } from '../../status/release-status.js';
import { backingOffStatus, stalledStatus, stallRecorded } from '../../status/remediation-status.js';
import { holdForDependencies } from '../actions/hold-for-dependencies.js';
import { refuseInvalidHealthChecks } from '../actions/refuse-invalid-cel.js';
import { installRelease } from '../actions/install.js';
import { reportRefused } from '../actions/refuse.js';
import { remediateRelease } from '../actions/remediate.js';
import type { AttemptOutcome } from '../actions/supersedable-attempt.js';
import { testRelease } from '../actions/test.js';
import { upgradeRelease } from '../actions/upgrade.js';
import { assertNever } from '../decide/assert-never.js';
import { RetryLaterError } from '../ports/context.js';
import { FORCED_WHY, gatedByDependencies, type Handover, type ReleaseAction, type ReleaseActionName } from '../decide/release-state.js';
import { failedActionOf, remediationPolicy } from '../decide/remediation-decision.js';
import { testsWanted } from '../decide/test-decision.js';
import { freezeGate } from './freeze-gate.js';
import { done, FRESH_PASS, isPassEnd, type Pass, type PassEnd, type ReconcileResult } from '../ports/pass.js';
import { driftStep, type DriftOutcome } from '../actions/drift.js';
import { FORCE_AT_ANNOTATION } from '../../../api/annotations.js';

/** A forced upgrade answers the retry request named in helmcrew.dev/forceAt (the one this pass handles). */
function forcedRequest(release: HelmRelease, why: string): string | undefined {
  return why === FORCED_WHY ? release.metadata.annotations?.[FORCE_AT_ANNOTATION] : undefined;
}

const IN_SYNC_RESULT: Record<DriftOutcome, ReconcileResult['action']> = {
  unchanged: 'unchanged',
  written: 'report-ready',
  reported: 'report-drift',
  corrected: 'correct-drift',
};

/**
 * The last stage: does what the release's state calls for (release-state.ts names it). Installs,
 * upgrades, tests and remediations that change Helm's records are followed at once by a fresh
 * pass, which decides what comes next from what is there now.
 */
export async function actStage(held: Pass, desired: DesiredRelease, action: ReleaseAction): Promise<PassEnd> {
  held.ctx.log.debug({ release: held.key, action: action.kind }, 'decided');
  // Every helm action an active freeze covers stops here (freeze-gate.ts).
  const gate = await freezeGate(held, action.kind);
  if (isPassEnd(gate)) return gate;
  const pass = { ...held, release: gate };
  const { ctx, release, target, history, key } = pass;
  if (gatedByDependencies(action.kind)) {
    if (await refuseInvalidHealthChecks(ctx, release)) return done(key, 'refused');
    const hold = await holdForDependencies(ctx, release);
    if (hold.held) return done(key, 'wait-for-dependencies', hold.requeueAfterMs);
  }
  // The one dispatch of the decided action (release-state.ts `nextAction` decided it, with its data).
  switch (action.kind) {
    case 'install':
      return afterAttempt(pass, action.kind, await installRelease(ctx, release, target, desired, 'install', history));
    case 'reinstall':
      return afterAttempt(pass, action.kind, await installRelease(ctx, release, target, desired, 'reinstall', history, action.why));
    case 'upgrade':
      if (action.handover) await recordHandover(pass, action.handover);
      return afterAttempt(pass, action.kind, await upgradeRelease(ctx, release, target, desired, action.why, history, forcedRequest(release, action.why)));
    case 'test':
      return (await testRelease(ctx, release, target, desired, action.deployed, action)) === 'failed' ? FRESH_PASS : done(key, 'test');
    case 'remediate-rollback':
      await remediateRelease(ctx, release, target, { action: 'rollback', from: action.from, to: action.to });
      // Storage changed: decide the retry (or giving up) from what is there now.
      return FRESH_PASS;
    case 'remediate-uninstall':
      await remediateRelease(ctx, release, target, { action: 'uninstall', release: action.release });
      return FRESH_PASS;
    case 'wait-for-retry':
      await ctx.status.write(release, backingOffStatus(release, failedActionOf(release), backingOffMessage(release, desired, action), ctx.now()));
      return done(key, 'wait-for-retry', action.retryInMs);
    case 'wait-for-lock':
      return waitForLock(pass, action.release);
    case 'unlock':
      return unlock(pass, action.release);
    case 'report-failure':
      return reportFailure(pass, action);
    case 'report-ready':
      // A check that finds nothing new writes nothing; drift (when asked for) is looked for here.
      return done(key, IN_SYNC_RESULT[await driftStep(pass, action.deployed, inSyncStatus(release, desired, history, ctx.now()))]);
    default:
      return assertNever(action);
  }
}

/** Said before helm runs: the upgrade that follows writes helmcrew's owner labels, whatever its outcome. */
async function recordHandover({ ctx, release, key }: Pass, handover: Handover): Promise<void> {
  const message = `Taking over Helm release ${handover.release} (revision ${handover.revision}) from ${handover.from}; its next revision is helmcrew's`;
  await ctx.status.write(release, { handover: { ...handover, at: ctx.now().toISOString() } });
  await ctx.effects().events.record(release, ReleaseEvent.ReleaseAdopted, message);
  ctx.log.info({ release: key, action: 'handover', from: handover.from, revision: handover.revision }, 'taking over a release');
}

/**
 * Between one replica handing a release back and an idle one taking it: the queue offers it again
 * after this, not at once, so two replicas with every slot taken do not pass it to and fro.
 */
export const HAND_BACK_RETRY_MS = 1000;

/** helm test, or the decision about a failure that will be remediated or retried, follows at once in a fresh pass. */
function afterAttempt(pass: Pass, action: ReleaseActionName, outcome: AttemptOutcome): PassEnd {
  // Nothing was written: another replica (or this one, once a slot frees) runs it.
  if (outcome === 'handed-back') return done(pass.key, 'handed-back', HAND_BACK_RETRY_MS);
  // A freeze that came while the attempt waited for its slot: the fresh pass's freeze gate records it.
  const followUp = outcome === 'failed' || outcome === 'superseded' || outcome === 'frozen' || (outcome === 'succeeded' && testsWanted(pass.release));
  return followUp ? FRESH_PASS : done(pass.key, action);
}

/** Another helm operation holds the release: said in status, and the queue tries again with backoff. */
async function waitForLock({ ctx, release, target }: Pass, pending: StoredRelease): Promise<never> {
  const message = `Release ${target.namespace}/${target.releaseName} is ${pending.status} (revision ${pending.revision}); another helm operation holds it`;
  await ctx.status.writeIfChanged(release, lockedStatus(release, message, ctx.now()));
  throw new RetryLaterError(message);
}

/** A pending record whose helm process is gone is marked failed, so the release can go on. */
async function unlock({ ctx, release, target, key }: Pass, pending: StoredRelease): Promise<PassEnd> {
  const message = `Revision ${pending.revision} was left ${pending.status} by a helm process that is gone; marked it failed to go on`;
  try {
    await ctx.effects().storage.markFailed(target.namespace, target.releaseName, pending.revision, `helmcrew: ${message}`, ctx.now());
  } catch (error) {
    if (!isForbidden(error)) throw error;
    const denied = `Revision ${pending.revision} of ${target.namespace}/${target.releaseName} is stale ${pending.status} but may not be unlocked: ${apiErrorMessage(error)}`;
    await reportRefused(ctx, release, ReleaseEvent.AccessDenied, denied);
    return done(key, 'refused');
  }
  await ctx.effects().events.record(release, ReleaseEvent.ReleaseUnlocked, message);
  ctx.log.warn({ release: key, action: 'unlock', revision: pending.revision, status: pending.status }, 'unlocked a stale pending release');
  // Storage changed under us: decide again from what is there now.
  return FRESH_PASS;
}

/** Nothing more will be tried for this spec: Stalled once, with an Event; later checks only record the check. */
async function reportFailure(pass: Pass, state: Extract<ReleaseAction, { kind: 'report-failure' }>): Promise<PassEnd> {
  const { ctx, release, key } = pass;
  if (!stallRecorded(release, state.message)) {
    await ctx.status.write(release, stalledStatus(release, failedActionOf(release), state.message, ctx.now()));
    await ctx.effects().events.record(release, ReleaseEvent.Stalled, state.message);
    ctx.log.warn({ release: key, action: 'report-failure', reason: state.reason }, 'stalled: a person must act');
  } else {
    await ctx.status.writeIfChanged(release, checkedStatus(ctx.now()));
  }
  return done(key, 'report-failure');
}

/** Pure: what status says while a failed attempt waits for its next try. */
function backingOffMessage(release: HelmRelease, desired: DesiredRelease, state: Extract<ReleaseAction, { kind: 'wait-for-retry' }>): string {
  const failed = failedActionOf(release);
  const seconds = Math.ceil(state.retryInMs / 1000);
  const retries = remediationPolicy(release.spec, failed).retries;
  const attempts = retries < 0 ? 'unlimited attempts' : `${retries + 1} attempts`;
  return `${failed === 'install' ? 'Install' : 'Upgrade'} of ${desired.chartName}@${desired.chartVersion} failed (${state.failures} of ${attempts}); trying again in ${seconds}s`;
}
