import type { HelmRelease } from '../../api/helmrelease.js';
import { ReleaseEvent } from '../../api/vocabulary.js';
import type { HelmReleaseStatus } from '../../api/helmrelease.js';
import { checkedStatus, failedStatus, inSyncStatus, lockedStatus } from '../status/release-status.js';
import { statusPatchChangesNothing } from '../status/status-patch.js';
import { installRelease } from './actions/install.js';
import { reportRetrying } from './actions/shared.js';
import { uninstallRelease } from './actions/uninstall.js';
import { upgradeRelease } from './actions/upgrade.js';
import { FreshReadNeeded, looksSettled, readOnlyContext } from './cached-read.js';
import { RetryLaterError, type ReconcileContext } from './context.js';
import { resolveDesiredRelease } from './desired-release.js';
import {
  assertNever,
  determineLifecycle,
  determineReleaseState,
  nextAction,
  nextLifecycleAction,
  type NextAction,
} from './release-state.js';
import { releaseTarget, type ReleaseTarget } from './release-target.js';

export interface ReconcileResult {
  key: string;
  /** 'unchanged': in sync and the status already says so; nothing was written. */
  action: NextAction | 'gone' | 'values-invalid' | 'chart-unavailable' | 'unchanged';
}

/**
 * One level-based pass over one HelmRelease: re-read everything, decide, act. Safe to run any
 * number of times; the queue guarantees one pass per release at a time.
 */
export async function reconcileRelease(ctx: ReconcileContext, namespace: string, name: string): Promise<ReconcileResult> {
  // The steady state: a settled release decided from the informer's copy, no GET. If the pass
  // would write anything or start helm, it is redone from a fresh read (cached-read.ts).
  const cached = ctx.cache?.get(namespace, name);
  if (cached && looksSettled(cached)) {
    try {
      return await reconcileFrom(readOnlyContext(ctx), cached);
    } catch (error) {
      if (!(error instanceof FreshReadNeeded)) throw error;
    }
  }
  const release = await ctx.api.get(namespace, name);
  if (!release) return { key: `${namespace}/${name}`, action: 'gone' };
  return reconcileFrom(ctx, release);
}

async function reconcileFrom(ctx: ReconcileContext, release: HelmRelease): Promise<ReconcileResult> {
  const { namespace, name } = release.metadata;
  const key = `${namespace}/${name}`;
  const target = releaseTarget(release);
  const history = await ctx.storage.history(target.namespace, target.releaseName);

  const lifecycle = nextLifecycleAction(determineLifecycle(release, history));
  if (lifecycle === 'add-finalizer') {
    await ctx.api.addFinalizer(release);
    // Metadata changes do not requeue (only generation does), so carry on in this pass.
    return reconcileRelease(ctx, namespace, name);
  }
  if (lifecycle !== 'continue') {
    await actOnLifecycle(ctx, release, target, lifecycle);
    return { key, action: lifecycle };
  }

  const resolved = await resolveDesiredRelease(ctx, release);
  if (!resolved.ok) {
    if (resolved.problem === 'values') {
      // Wrong values do not fix themselves by retrying fast; the periodic check looks again.
      await ctx.api.patchStatus(release, failedStatus(release, ReleaseEvent.ValuesInvalid, resolved.message, history, ctx.now()));
      await ctx.events.record(release, ReleaseEvent.ValuesInvalid, resolved.message);
      return { key, action: 'values-invalid' };
    }
    await reportRetrying(ctx, release, ReleaseEvent.ChartPullFailed, resolved.message);
    throw new RetryLaterError(resolved.message);
  }
  const { desired } = resolved;
  const state = determineReleaseState(release, desired, history, { now: ctx.now(), timeoutSeconds: target.timeoutSeconds });
  const action = nextAction(state);
  ctx.log.debug({ release: key, state: state.kind, action }, 'decided');

  switch (action) {
    case 'install':
    case 'reinstall':
      await installRelease(ctx, release, target, desired, action);
      break;
    case 'upgrade':
      await upgradeRelease(ctx, release, target, desired, state.kind === 'out-of-sync' ? state.why : 'out of sync');
      break;
    case 'wait-for-lock': {
      const message = `Release ${target.namespace}/${target.releaseName} is ${history.latest?.status} (revision ${history.latest?.revision}); another helm operation holds it`;
      await writeStatusIfChanged(ctx, release, lockedStatus(release, message, ctx.now()));
      throw new RetryLaterError(message);
    }
    case 'unlock': {
      const pending = history.latest!;
      const message = `Revision ${pending.revision} was left ${pending.status} by a helm process that is gone; marked it failed to go on`;
      await ctx.storage.markFailed(target.namespace, target.releaseName, pending.revision, `helmcrew: ${message}`, ctx.now());
      await ctx.events.record(release, ReleaseEvent.ReleaseUnlocked, message);
      ctx.log.warn({ release: key, action: 'unlock', revision: pending.revision, status: pending.status }, 'unlocked a stale pending release');
      // Storage changed under us: decide again from what is there now.
      return reconcileRelease(ctx, namespace, name);
    }
    case 'report-failure':
      await writeStatusIfChanged(ctx, release, checkedStatus(ctx.now()));
      break;
    case 'report-ready':
      if (!(await writeStatusIfChanged(ctx, release, inSyncStatus(release, desired, history, ctx.now())))) return { key, action: 'unchanged' };
      break;
    case 'uninstall':
    case 'add-finalizer':
    case 'remove-finalizer':
    case 'report-suspended':
    case 'nothing':
      throw new Error(`action ${action} is not a release-state action`);
    default:
      assertNever(action);
  }
  return { key, action };
}

/** A check that finds nothing new writes nothing: only a patch that changes more than bookkeeping is sent. */
async function writeStatusIfChanged(ctx: ReconcileContext, release: HelmRelease, status: HelmReleaseStatus): Promise<boolean> {
  if (statusPatchChangesNothing(release.status, status)) return false;
  await ctx.api.patchStatus(release, status);
  return true;
}

async function actOnLifecycle(ctx: ReconcileContext, release: HelmRelease, target: ReleaseTarget, action: NextAction): Promise<void> {
  switch (action) {
    case 'uninstall':
      await uninstallRelease(ctx, release, target);
      return;
    case 'remove-finalizer':
      await ctx.api.removeFinalizer(release);
      return;
    case 'report-suspended':
    case 'nothing':
      return;
    default:
      throw new Error(`action ${action} is not a lifecycle action`);
  }
}
