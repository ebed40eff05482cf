import { readSuspension, type RollbackRequest } from '../../../api/annotations.js';
import type { HelmRelease } from '../../../api/helmrelease.js';
import type { RollbackRecord } from '../../../api/helmrelease-status.js';
import { ReleaseEvent } from '../../../api/vocabulary.js';
import { HelmError } from '../../helm/helm-error.js';
import { rollbackDoneStatus, rollbackStartedStatus } from '../../status/suspension-status.js';
import type { PassContext } from '../ports/context.js';
import { releaseTarget, type ReleaseTarget } from '../../../core/release/release-target.js';
import { withInventory } from '../decide/inventory.js';
import { knownSecrets } from '../desired/known-secrets.js';
import type { ReleaseHistory } from '../../../core/helm-storage/release-storage.js';
import { redactSecrets } from '../decide/redact.js';
import { chooseRollbackRevision } from '../../../core/release/rollback-decision.js';
import { rollbackFlags } from '../../helm/helm-flags.js';
import { eventImages } from '../../../core/release/deployed-images.js';
import { readableValues } from '../../drift/manifest-objects.js';
import { outlineDocuments } from '../../drift/manifest-outline.js';
import { pendingLeftByRollback } from '../decide/rollback-left-pending.js';
import { apiErrorMessage } from '../../../core/kube/errors.js';

/**
 * Rolls a suspended release back with `helm rollback`, as asked through the rollback
 * annotations. The release stays suspended afterwards, so nothing undoes it until resume.
 * Each request id is handled once: its outcome is recorded in status.rollback.
 */
export async function rollbackRelease(
  ctx: PassContext,
  release: HelmRelease,
  target: ReleaseTarget,
  request: RollbackRequest,
  /** Helm's records as the gate read them for this pass: not read again. */
  history: ReleaseHistory,
): Promise<void> {
  const suspension = readSuspension(release.metadata.annotations);
  const choice = chooseRollbackRevision(history, request);
  const at = () => ctx.now().toISOString();
  if (!choice.ok) {
    const record: RollbackRecord = { requestId: request.id, succeeded: false, message: `Rollback not done: ${choice.message}`, at: at() };
    await finish(ctx, release, record, suspension, history);
    return;
  }
  const { from, to } = choice;
  const what = `revision ${from.revision} (${from.chartName}@${from.chartVersion}) → revision ${to.revision} (${to.chartName}@${to.chartVersion})`;
  ctx.log.info({ release: target.key, action: 'rollback', from: from.revision, to: to.revision, request: request.id }, 'rolling back');
  const started: RollbackRecord = {
    requestId: request.id,
    succeeded: false,
    fromRevision: from.revision,
    toRevision: to.revision,
    message: `Rolling back ${what}`,
    at: at(),
  };
  await ctx.status.write(release, rollbackStartedStatus(release, started, ctx.now()));
  // helm quotes values in its errors. The Secret values the spec composes now are the ones known;
  // a revision's own values are not marked, so those of a Secret since changed cannot be told apart.
  // Only the Secret values are needed here, so the chart is not resolved (no index fetch).
  const secrets = await knownSecrets(ctx, release);
  const redact = (text: string) => redactSecrets(text, secrets);
  const startedAt = Date.now();
  try {
    await helmRollback(ctx, target, to.revision, history.latest?.applyMethod, redact);
  } catch (error) {
    if (!(error instanceof HelmError)) throw error;
    const after = await historyAfterFailedRollback(ctx, target, history.latest?.revision);
    const record: RollbackRecord = {
      requestId: request.id,
      succeeded: false,
      fromRevision: from.revision,
      toRevision: to.revision,
      message: redact(`Helm rollback ${what} failed: ${error.stderrExcerpt}`),
      at: at(),
    };
    await finish(ctx, release, record, suspension, after);
    return;
  }
  const after = await ctx.storage.history(target.namespace, target.releaseName);
  const message = `Rolled back ${what}, now revision ${after.deployed?.revision}; suspended until resume`;
  const record: RollbackRecord = {
    requestId: request.id,
    succeeded: true,
    fromRevision: from.revision,
    toRevision: to.revision,
    revision: after.deployed?.revision,
    message,
    at: at(),
  };
  ctx.log.info({ release: target.key, action: 'rollback', durationMs: Date.now() - startedAt, revision: after.deployed?.revision }, 'rolled back');
  await finish(ctx, release, record, suspension, after);
}

/** `helm rollback` to one revision: shared by rollback on request and automatic remediation. */
export async function helmRollback(
  ctx: PassContext,
  target: ReleaseTarget,
  revision: number,
  /** How the newest revision was applied: what serverSideApply "auto" follows. */
  lastApplyMethod: string | undefined,
  redact?: (text: string) => string,
): Promise<void> {
  await ctx.effects().helm.rollback({
    key: target.key,
    releaseName: target.releaseName,
    namespace: target.namespace,
    revision,
    timeoutSeconds: target.actions.rollback.timeoutSeconds,
    flags: rollbackFlags(target.actions.rollback, lastApplyMethod),
    maxHistory: target.maxHistory,
    impersonate: target.impersonate,
    ...(redact ? { redact } : {}),
  });
}

/**
 * Helm's records after a `helm rollback` that failed: a revision it left pending-rollback (a failed
 * pre-rollback hook) is marked failed first (decide/rollback-left-pending.ts). A mark that is
 * refused or fails is logged and left to the stale-lock rule, as before.
 */
export async function historyAfterFailedRollback(ctx: PassContext, target: ReleaseTarget, newestBefore: number | undefined): Promise<ReleaseHistory> {
  const after = await ctx.storage.history(target.namespace, target.releaseName);
  const left = pendingLeftByRollback(newestBefore, after.latest);
  if (!left) return after;
  const description = `helmcrew: helm rollback failed and left revision ${left.revision} pending-rollback (a pre-rollback hook failed?); marked it failed`;
  try {
    await ctx.effects().storage.markFailed(target.namespace, target.releaseName, left.revision, description, ctx.now());
  } catch (error) {
    ctx.log.warn(
      { release: target.key, action: 'rollback', revision: left.revision, error: apiErrorMessage(error) },
      'could not mark the rollback left pending failed',
    );
    return after;
  }
  ctx.log.info({ release: target.key, action: 'rollback', revision: left.revision }, "marked the failed rollback's pending revision failed");
  return ctx.storage.history(target.namespace, target.releaseName);
}

async function finish(
  ctx: PassContext,
  release: HelmRelease,
  record: RollbackRecord,
  suspension: ReturnType<typeof readSuspension>,
  history: Parameters<typeof rollbackDoneStatus>[3],
): Promise<void> {
  const { releaseName: name, namespace } = releaseTarget(release);
  // The deployed manifest, read once for the inventory and the Event's images.
  const manifest = history.deployed?.manifest;
  const documents = manifest === undefined ? undefined : outlineDocuments(manifest);
  await ctx.status.write(release, withInventory(rollbackDoneStatus(release, record, suspension, history, ctx.now()), documents, { name, namespace }));
  const from = history.releases.find((r) => r.revision === record.fromRevision);
  const to = history.releases.find((r) => r.revision === record.toRevision);
  await ctx.effects().events.record(release, record.succeeded ? ReleaseEvent.RollbackSucceeded : ReleaseEvent.RollbackFailed, record.message, {
    action: 'rollback',
    attempt: record.requestId,
    ...(from ? { fromVersion: from.chartVersion } : {}),
    ...(to ? { toVersion: to.chartVersion } : {}),
    ...(record.revision !== undefined ? { revision: record.revision } : {}),
    // Who asked is the ledger's (requester-sink.ts), found by the request id: the suspension annotation is anyone's to write.
    cause: `rollback requested (${record.requestId})`,
    requestId: record.requestId,
    ...(record.succeeded ? eventImages(documents && readableValues(documents)) : {}),
  });
  if (!record.succeeded)
    ctx.log.warn({ release: `${release.metadata.namespace}/${release.metadata.name}`, action: 'rollback', request: record.requestId }, record.message);
}
