import type { HelmRelease } from '../../api/helmrelease.js';
import type { ReleaseHistory } from '../../core/helm-storage/release-storage.js';
import type { DesiredRelease } from '../../core/release/desired-release.js';
import { FreshReadNeeded, looksSettled } from './ports/cached-read.js';
import type { ControllerContext } from './ports/context.js';
import { determineReleaseState, nextAction, type ReleaseAction } from './decide/release-state.js';
import { hasPendingRecovery, pendingRecovery, recoveryHandledStatus } from './decide/manual-recovery.js';
import { actStage } from './stages/act.js';
import { desiredStage } from './stages/desired.js';
import { proposalsStage } from './stages/proposals.js';
import { gateStage } from './stages/gate.js';
import { lifecycleStage } from './stages/lifecycle.js';
import { endsPass, stageSpan } from './ports/pass-spans.js';
import { isPassEnd, type Pass, type PassEnd, type ReadFrom, type ReconcileResult } from './ports/pass.js';

/**
 * One level-based pass over one HelmRelease: re-read everything, decide, act. Safe to run any
 * number of times; the queue guarantees one pass per release at a time.
 */
export async function reconcileRelease(controllerCtx: ControllerContext, namespace: string, name: string): Promise<ReconcileResult> {
  // Passes start from the informer's copy, no GET: a settled one read-only (the steady state), any
  // other until its first write, which the server refuses if the copy was stale. Either way, a
  // pass the copy cannot carry is redone from a fresh read (cached-read.ts).
  const cached = controllerCtx.cache?.get(namespace, name);
  if (cached?.metadata.resourceVersion) {
    try {
      return await reconcileFrom(controllerCtx, cached, looksSettled(cached) ? 'cache' : 'cache-until-write');
    } catch (error) {
      if (!(error instanceof FreshReadNeeded)) throw error;
    }
  }
  return reconcileFresh(controllerCtx, namespace, name, 'server');
}

async function reconcileFresh(controllerCtx: ControllerContext, namespace: string, name: string, readFrom: 'server' | 'latest'): Promise<ReconcileResult> {
  const release = await controllerCtx.api.get(namespace, name);
  if (!release) return { key: `${namespace}/${name}`, action: 'gone' };
  return reconcileFrom(controllerCtx, release, readFrom);
}

/** Runs the stages on this copy of the object, then the further pass they ask for, if any. */
async function reconcileFrom(
  controllerCtx: ControllerContext,
  release: HelmRelease,
  readFrom: ReadFrom,
  knownHistory?: ReleaseHistory,
): Promise<ReconcileResult> {
  const end = await runStages(controllerCtx, release, readFrom, knownHistory);
  const { namespace, name } = release.metadata;
  switch (end.end) {
    case 'done':
      return end.result;
    case 'fresh-pass':
      return reconcileFresh(controllerCtx, namespace, name, 'latest');
    case 'new-pass':
      return reconcileRelease(controllerCtx, namespace, name);
    case 'go-on-from':
      return reconcileFrom(controllerCtx, end.release, 'server', end.history);
  }
}

/**
 * The pass as a list of stages. Each one either hands the next what it needs or ends the pass
 * (ports/pass.ts); decisions are pure (decide/lifecycle-state.ts, decide/release-state.ts), the stages do the I/O.
 */
async function runStages(controllerCtx: ControllerContext, release: HelmRelease, readFrom: ReadFrom, knownHistory?: ReleaseHistory): Promise<PassEnd> {
  // Who acts, whether it may, the finalizer, Helm's records.
  // Each stage is a span of the pass's trace when tracing is on (ports/pass-spans.ts).
  const pass = await stageSpan('gate', () => gateStage(controllerCtx, release, readFrom, knownHistory), endsPass);
  if (isPassEnd(pass)) return pass;
  // Deletion, suspension, ownership.
  const lifecycle = await stageSpan('lifecycle', () => lifecycleStage(pass), endsPass);
  if (lifecycle) return lifecycle;
  // The exact chart version and the composed values.
  const desired = await stageSpan('desired', () => desiredStage(pass), endsPass);
  if (isPassEnd(desired)) return desired;
  // Approved changes (issue 35) into status, held by a freeze like the upgrade they lead to.
  const proposed = await stageSpan(
    'proposals',
    () => proposalsStage(pass, desired),
    (end) => ({ 'helmcrew.proposals': end ? 'applied' : 'none' }),
  );
  if (proposed) return proposed;
  // Manual recovery asked through annotations (forceAt, resetAt, requestedAt), recorded as handled.
  const recovered = await stageSpan('recovery', () => recoveryStage(pass));
  // What Helm's records say about them, then what that calls for: decided once, dispatched once.
  const action = await stageSpan(
    'decide',
    () => Promise.resolve(decideStage(recovered.pass, desired, recovered.force)),
    (next) => ({
      'helmcrew.decision': next.kind,
    }),
  );
  return stageSpan('act', () => actStage(recovered.pass, desired, action));
}

/**
 * New manual-recovery requests are recorded as handled before anything acts on them: each is taken
 * once (a controller that dies right after has used it up, as Flux's lastHandled* do).
 */
async function recoveryStage(pass: Pass): Promise<{ pass: Pass; force: boolean }> {
  const pending = pendingRecovery(pass.release);
  if (!hasPendingRecovery(pending)) return { pass, force: false };
  pass.ctx.log.info({ release: pass.key, action: 'manual-recovery', ...pending }, 'manual recovery requested');
  const release = await pass.ctx.status.write(pass.release, recoveryHandledStatus(pass.release, pending, pass.ctx.now()));
  return { pass: { ...pass, release }, force: pending.forceAt !== undefined };
}

/** Pure but for the clock. */
function decideStage({ ctx, release, history, target, key }: Pass, desired: DesiredRelease, force: boolean): ReleaseAction {
  return nextAction(
    determineReleaseState(
      release,
      desired,
      history,
      {
        now: ctx.now(),
        timeoutSeconds: target.timeoutSeconds,
        rollbackTimeoutSeconds: target.actions.rollback.timeoutSeconds,
        ownHelmRun: ctx.helmRuns?.last(key),
      },
      force,
    ),
  );
}
