import type { HelmRelease } from '../../api/helmrelease.js';
import { ReleaseEvent } from '../../api/vocabulary.js';
import { withSupersededFromStatus, type ReleaseHistory } from '../../core/helm-storage/release-storage.js';
import { apiErrorMessage, isForbidden } from '../../core/kube/errors.js';
import { checkedStatus, failedStatus, inSyncStatus, lockedStatus } from '../status/release-status.js';
import { failureAlreadyReported } from '../status/status-patch.js';
import { readSuspension } from '../../api/annotations.js';
import { describeSuspension, resumedStatus, suspendedStatus } from '../status/suspension-status.js';
import { installRelease } from './actions/install.js';
import { rollbackRelease } from './actions/rollback.js';
import { reportNotOurs, reportRefused } from './actions/refuse.js';
import { reportRetrying, writeStatusIfChanged } from './actions/shared.js';
import { uninstallRelease } from './actions/uninstall.js';
import { upgradeRelease } from './actions/upgrade.js';
import { FreshReadNeeded, looksSettled, readOnlyContext, verifiedFirstWriteContext } from './cached-read.js';
import { remediateRelease } from './actions/remediate.js';
import type { AttemptOutcome } from './actions/shared.js';
import { testRelease } from './actions/test.js';
import { testsWanted } from './test-decision.js';
import { holdForDependencies } from './actions/hold-for-dependencies.js';
import { backingOffStatus, stalledStatus, stallRecorded } from '../status/remediation-status.js';
import { failedActionOf, remediationPolicy } from './remediation-decision.js';
import { RetryLaterError, type ReconcileContext } from './context.js';
import { resolveDesiredRelease } from './desired-release.js';
import {
  assertNever,
  determineLifecycle,
  needsFinalizer,
  determineReleaseState,
  nextAction,
  gatedByDependencies,
  nextLifecycleAction,
  type NextAction,
} from './release-state.js';
import { releaseTarget, type ReleaseTarget } from '../../core/release/release-target.js';
import { checkTenancy, serviceAccountUser } from './tenancy.js';

export interface ReconcileResult {
  key: string;
  /** 'unchanged': in sync and the status already says so; nothing was written. */
  action: NextAction | 'gone' | 'values-invalid' | 'chart-unavailable' | 'refused' | 'repository-refused' | 'wait-for-dependencies' | 'unchanged';
  /** Run this release again after this long (a backoff chosen by a decision, not an error). */
  requeueAfterMs?: number;
}

/**
 * One level-based pass over one HelmRelease: re-read everything, decide, act. Safe to run any
 * number of times; the queue guarantees one pass per release at a time.
 */
export async function reconcileRelease(controllerCtx: ReconcileContext, namespace: string, name: string): Promise<ReconcileResult> {
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

/**
 * Where a pass reads from. 'cache': the informer's copy, read-only. 'cache-until-write': the
 * informer's copy, its first write conditional on that copy's version; Helm's records as new as
 * it. 'server': a GET, and Helm's records as new as that object. 'latest': a GET and the newest
 * records: the follow-up pass after this job's own helm run or unlock, whose writes the object's
 * version does not cover.
 */
type ReadFrom = 'cache' | 'cache-until-write' | 'server' | 'latest';

async function reconcileFresh(controllerCtx: ReconcileContext, namespace: string, name: string, readFrom: 'server' | 'latest'): Promise<ReconcileResult> {
  const release = await controllerCtx.api.get(namespace, name);
  if (!release) return { key: `${namespace}/${name}`, action: 'gone' };
  return reconcileFrom(controllerCtx, release, readFrom);
}

async function reconcileFrom(
  controllerCtx: ReconcileContext,
  release: HelmRelease,
  readFrom: ReadFrom,
  knownHistory?: ReleaseHistory,
): Promise<ReconcileResult> {
  const { namespace, name } = release.metadata;
  const key = `${namespace}/${name}`;
  const target = releaseTarget(release, controllerCtx.tenancy);
  const acting = actingAs(controllerCtx, target);
  const ctx =
    readFrom === 'cache'
      ? readOnlyContext(acting)
      : readFrom === 'cache-until-write'
        ? verifiedFirstWriteContext(acting, release.metadata.resourceVersion!)
        : acting;

  const tenancy = checkTenancy(release, target, ctx.tenancy);
  if (!tenancy.allowed) {
    // Nothing is read or run in a namespace the operator keeps this HelmRelease out of.
    if (release.metadata.deletionTimestamp) await ctx.api.removeFinalizer(release);
    else await reportRefused(ctx, release, ReleaseEvent.TargetNamespaceRefused, tenancy.message);
    return { key, action: 'refused' };
  }
  if (!knownHistory && needsFinalizer(release)) {
    // The finalizer is decided from the object alone, so it is written while the history is
    // read. Metadata changes do not requeue (only generation does), so carry on in this pass from
    // the object the PATCH returned: a finalizer changes neither the spec nor Helm's records.
    const [updated, read] = await Promise.all([ctx.api.addFinalizer(release), readHistory(ctx, release, target, readFrom)]);
    if (!read) return { key, action: 'refused' };
    return reconcileFrom(controllerCtx, updated, 'server', read);
  }
  const history = knownHistory ?? (await readHistory(ctx, release, target, readFrom));
  if (!history) return { key, action: 'refused' };

  const lifecycleState = determineLifecycle(release, history);
  const lifecycle = nextLifecycleAction(lifecycleState);
  if (lifecycleState.kind === 'not-ours' || lifecycleState.kind === 'deleting-not-ours') {
    await reportNotOurs(ctx, release, target, lifecycleState.ownership);
  }
  if (lifecycle === 'record-resume') {
    await ctx.api.patchStatus(release, resumedStatus(release));
    await ctx.events.record(release, ReleaseEvent.Resumed, 'Resumed: back to the declared spec', { action: 'resume' });
    ctx.log.info({ release: key, action: 'resume' }, 'resumed');
    // The suspension is over; reconcile the declared spec in this same pass.
    return reconcileRelease(controllerCtx, namespace, name);
  }
  if (lifecycle === 'rollback' && lifecycleState.kind === 'suspended' && lifecycleState.rollback) {
    await rollbackRelease(ctx, release, target, lifecycleState.rollback);
    return { key, action: lifecycle };
  }
  if (lifecycle !== 'continue') {
    await actOnLifecycle(ctx, release, target, lifecycle);
    return { key, action: lifecycle };
  }

  const resolved = await resolveDesiredRelease(ctx, release);
  if (!resolved.ok) {
    if (resolved.problem === 'values') {
      // Wrong values do not fix themselves by retrying fast; the periodic check looks again.
      if (failureAlreadyReported(release, ReleaseEvent.ValuesInvalid, resolved.message)) return { key, action: 'values-invalid' };
      await ctx.api.patchStatus(release, failedStatus(release, ReleaseEvent.ValuesInvalid, resolved.message, history, ctx.now()));
      await ctx.events.record(release, ReleaseEvent.ValuesInvalid, resolved.message);
      return { key, action: 'values-invalid' };
    }
    if (resolved.problem === 'repository') {
      // An operator policy: retrying cannot help until the spec or the policy changes.
      if (failureAlreadyReported(release, ReleaseEvent.RepositoryNotAllowed, resolved.message)) return { key, action: 'repository-refused' };
      await ctx.api.patchStatus(release, failedStatus(release, ReleaseEvent.RepositoryNotAllowed, resolved.message, history, ctx.now()));
      await ctx.events.record(release, ReleaseEvent.RepositoryNotAllowed, resolved.message);
      return { key, action: 'repository-refused' };
    }
    await reportRetrying(ctx, release, ReleaseEvent.ChartPullFailed, resolved.message);
    throw new RetryLaterError(resolved.message);
  }
  const { desired } = resolved;
  const state = determineReleaseState(release, desired, history, { now: ctx.now(), timeoutSeconds: target.timeoutSeconds });
  const action = nextAction(state);
  ctx.log.debug({ release: key, state: state.kind, action }, 'decided');
  if (gatedByDependencies(action)) {
    const hold = await holdForDependencies(ctx, release);
    if (hold.held) return { key, action: 'wait-for-dependencies', ...(hold.requeueAfterMs !== undefined ? { requeueAfterMs: hold.requeueAfterMs } : {}) };
  }

  switch (action) {
    case 'install':
    case 'reinstall':
      // A failure that will be remediated or retried is decided on at once, in a fresh pass.
      // helm test, or the decision about a failure that will be remediated or retried, follows at once in a fresh pass.
      if (followUp(release, await installRelease(ctx, release, target, desired, action, history))) return reconcileFresh(ctx, namespace, name, 'latest');
      break;
    case 'upgrade':
      if (followUp(release, await upgradeRelease(ctx, release, target, desired, state.kind === 'out-of-sync' ? state.why : 'out of sync', history)))
        return reconcileFresh(ctx, namespace, name, 'latest');
      break;
    case 'test':
      if (state.kind !== 'untested') break;
      if ((await testRelease(ctx, release, target, desired, state.deployed)) === 'failed') return reconcileFresh(ctx, namespace, name, 'latest');
      break;
    case 'remediate-rollback':
    case 'remediate-uninstall':
      if (state.kind === 'failed-needs-rollback') await remediateRelease(ctx, release, target, { action: 'rollback', from: state.from, to: state.to });
      else if (state.kind === 'failed-needs-uninstall') await remediateRelease(ctx, release, target, { action: 'uninstall', release: state.release });
      // Storage changed: decide the retry (or giving up) from what is there now.
      return reconcileFresh(ctx, namespace, name, 'latest');
    case 'wait-for-retry': {
      if (state.kind !== 'failed-backing-off') break;
      const failed = failedActionOf(release);
      const seconds = Math.ceil(state.retryInMs / 1000);
      const message = `${failed === 'install' ? 'Install' : 'Upgrade'} of ${desired.chartName}@${desired.chartVersion} failed (${state.failures} of ${describeAttempts(release)}); trying again in ${seconds}s`;
      await ctx.api.patchStatus(release, backingOffStatus(release, failed, message, ctx.now()));
      return { key, action, requeueAfterMs: state.retryInMs };
    }
    case 'wait-for-lock': {
      const message = `Release ${target.namespace}/${target.releaseName} is ${history.latest?.status} (revision ${history.latest?.revision}); another helm operation holds it`;
      await writeStatusIfChanged(ctx, release, lockedStatus(release, message, ctx.now()));
      throw new RetryLaterError(message);
    }
    case 'unlock': {
      const pending = history.latest!;
      const message = `Revision ${pending.revision} was left ${pending.status} by a helm process that is gone; marked it failed to go on`;
      try {
        await ctx.storage.markFailed(target.namespace, target.releaseName, pending.revision, `helmcrew: ${message}`, ctx.now());
      } catch (error) {
        if (!isForbidden(error)) throw error;
        const denied = `Revision ${pending.revision} of ${target.namespace}/${target.releaseName} is stale ${pending.status} but may not be unlocked: ${apiErrorMessage(error)}`;
        await reportRefused(ctx, release, ReleaseEvent.AccessDenied, denied);
        return { key, action: 'refused' };
      }
      await ctx.events.record(release, ReleaseEvent.ReleaseUnlocked, message);
      ctx.log.warn({ release: key, action: 'unlock', revision: pending.revision, status: pending.status }, 'unlocked a stale pending release');
      // Storage changed under us: decide again from what is there now.
      return reconcileFresh(controllerCtx, namespace, name, 'latest');
    }
    case 'report-failure':
      if (state.kind === 'failed-unchanged' && !stallRecorded(release, state.message)) {
        await ctx.api.patchStatus(release, stalledStatus(release, failedActionOf(release), state.message, ctx.now()));
        await ctx.events.record(release, ReleaseEvent.Stalled, state.message);
        ctx.log.warn({ release: key, action, reason: state.reason }, 'stalled: a person must act');
      } else {
        await writeStatusIfChanged(ctx, release, checkedStatus(ctx.now()));
      }
      break;
    case 'report-ready':
      if (!(await writeStatusIfChanged(ctx, release, inSyncStatus(release, desired, history, ctx.now())))) return { key, action: 'unchanged' };
      break;
    case 'uninstall':
    case 'add-finalizer':
    case 'remove-finalizer':
    case 'report-suspended':
    case 'record-suspension':
    case 'record-resume':
    case 'rollback':
    case 'report-not-ours':
    case 'nothing':
      throw new Error(`action ${action} is not a release-state action`);
    default:
      assertNever(action);
  }
  return { key, action };
}

async function actOnLifecycle(ctx: ReconcileContext, release: HelmRelease, target: ReleaseTarget, action: NextAction): Promise<void> {
  switch (action) {
    case 'uninstall':
      await uninstallRelease(ctx, release, target);
      return;
    case 'remove-finalizer':
      await ctx.api.removeFinalizer(release);
      return;
    case 'record-suspension': {
      const record = readSuspension(release.metadata.annotations);
      await ctx.api.patchStatus(release, suspendedStatus(release, record, ctx.now()));
      await ctx.events.record(release, ReleaseEvent.Suspended, describeSuspension(record), {
        action: 'suspend',
        ...(record ? { cause: record.by, attempt: record.at } : {}),
      });
      ctx.log.info({ release: target.key, action: 'suspend', by: record?.by }, 'suspended');
      return;
    }
    case 'report-suspended':
    case 'report-not-ours':
    case 'nothing':
      return;
    default:
      throw new Error(`action ${action} is not a lifecycle action`);
  }
}

function followUp(release: HelmRelease, outcome: AttemptOutcome): boolean {
  return outcome === 'failed' || outcome === 'superseded' || (outcome === 'succeeded' && testsWanted(release));
}

function describeAttempts(release: HelmRelease): string {
  const retries = remediationPolicy(release.spec, failedActionOf(release)).retries;
  return retries < 0 ? 'unlimited attempts' : `${retries + 1} attempts`;
}

/**
 * The pass as the HelmRelease's identity: values sources and release records are read with the
 * ServiceAccount's rights when it acts as one, as helm is run. Status and Events of the
 * HelmRelease itself stay the controller's.
 */
function actingAs(ctx: ReconcileContext, target: ReleaseTarget): ReconcileContext {
  if (!target.impersonate) return ctx;
  const kube = ctx.identities.forUser(serviceAccountUser(target.impersonate));
  return { ...ctx, kube, storage: ctx.storage.withClients(kube) };
}

/** Helm's records for the target, or undefined (status written) when the identity may not read them. */
async function readHistory(ctx: ReconcileContext, release: HelmRelease, target: ReleaseTarget, readFrom: ReadFrom): Promise<ReleaseHistory | undefined> {
  try {
    // A quiet check of a settled release needs only the newest records (cached-read.ts); any
    // action it might lead to is decided again from a fresh pass with the whole history.
    // Every helm operation of ours is followed by a status write, so records as new as this
    // object's version include all of them. The API server answers such a read from its watch
    // cache at once, as new as that cache is (milliseconds behind etcd): someone else's helm run
    // is seen unless it is that recent, and then the next check sees it. A fully consistent read
    // would ask etcd for its revision and wait for the cache to reach it (up to ~100 ms).
    if (readFrom === 'cache') {
      const newest = await ctx.storage.history(target.namespace, target.releaseName, {
        withoutSuperseded: true,
        notOlderThan: release.metadata.resourceVersion,
      });
      return withSupersededFromStatus(newest, release.status?.history);
    }
    if (readFrom === 'latest') return await ctx.storage.history(target.namespace, target.releaseName);
    return await ctx.storage.history(target.namespace, target.releaseName, { notOlderThan: release.metadata.resourceVersion });
  } catch (error) {
    if (!isForbidden(error)) throw error;
    const message = `Cannot read the Helm release records of ${target.namespace}/${target.releaseName}: ${apiErrorMessage(error)}`;
    // Never installed by this object, nothing to uninstall: deleting need not wait for rights.
    if (release.metadata.deletionTimestamp && !release.status?.releaseName) {
      await ctx.api.removeFinalizer(release);
      return undefined;
    }
    // Like wrong values, missing rights do not come back by retrying fast; the periodic check looks again.
    await reportRefused(ctx, release, ReleaseEvent.AccessDenied, message);
    return undefined;
  }
}
