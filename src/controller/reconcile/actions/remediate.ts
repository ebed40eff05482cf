import type { HelmRelease } from '../../../api/helmrelease.js';
import type { RemediationRecord } from '../../../api/helmrelease-status.js';
import { HelmError } from '../../helm/helm-error.js';
import type { StoredRelease } from '../../../core/helm-storage/release-storage.js';
import { remediationDoneStatus, remediationEvent, remediationStartedStatus } from '../../status/remediation-status.js';
import type { PassContext } from '../ports/context.js';
import { failedActionOf, failureCount } from '../decide/remediation-decision.js';
import { releaseTarget, type ReleaseTarget } from '../../../core/release/release-target.js';
import { withInventory } from '../decide/inventory.js';
import { helmRollback, historyAfterFailedRollback } from './rollback.js';
import { uninstallRequest } from '../desired/helm-requests.js';

/**
 * Undoes a failed install or upgrade by itself, as the remediation policy says: `helm rollback`
 * to the last deployed revision (which re-applies that revision's own manifest and values, and
 * nothing else), or `helm uninstall`. The outcome is recorded for this failure, so it is done
 * once; whether to try again is decided in the next pass.
 */
export async function remediateRelease(
  ctx: PassContext,
  release: HelmRelease,
  target: ReleaseTarget,
  plan: { action: 'rollback'; from: StoredRelease; to: StoredRelease } | { action: 'uninstall'; release: StoredRelease },
): Promise<void> {
  const failed = failedActionOf(release);
  const failure = failureCount(release, failed);
  const what =
    plan.action === 'rollback'
      ? `rolling back revision ${plan.from.revision} (${plan.from.chartName}@${plan.from.chartVersion}) to revision ${plan.to.revision} (${plan.to.chartName}@${plan.to.chartVersion})`
      : `uninstalling the failed revision ${plan.release.revision} (${plan.release.chartName}@${plan.release.chartVersion})`;
  ctx.log.info({ release: target.key, action: `remediate-${plan.action}`, failed, failure }, what);
  await ctx.status.write(release, remediationStartedStatus(release, `${failed === 'install' ? 'Install' : 'Upgrade'} failed; ${what}`, ctx.now()));
  const base = { action: plan.action, failure, failedAction: failed, generation: release.metadata.generation } as const;
  let record: RemediationRecord;
  try {
    if (plan.action === 'rollback') {
      await helmRollback(ctx, target, plan.to.revision, plan.from.applyMethod);
    } else {
      await ctx.effects().helm.uninstall(uninstallRequest(target, 'remediate'));
    }
    const after = await ctx.storage.history(target.namespace, target.releaseName);
    const message =
      plan.action === 'rollback'
        ? `Remediated: rolled back revision ${plan.from.revision} (${plan.from.chartName}@${plan.from.chartVersion}) to revision ${plan.to.revision} (${plan.to.chartName}@${plan.to.chartVersion}), now revision ${after.deployed?.revision}`
        : `Remediated: uninstalled ${target.namespace}/${target.releaseName} after the failed ${failed}`;
    record = {
      ...base,
      succeeded: true,
      ...(plan.action === 'rollback' && after.deployed ? { revision: after.deployed.revision } : {}),
      message,
      at: ctx.now().toISOString(),
    };
    await finish(ctx, release, record, failed, after);
  } catch (error) {
    if (!(error instanceof HelmError)) throw error;
    const after =
      plan.action === 'rollback'
        ? await historyAfterFailedRollback(ctx, target, plan.from.revision)
        : await ctx.storage.history(target.namespace, target.releaseName);
    record = { ...base, succeeded: false, message: `Remediation failed while ${what}: ${error.stderrExcerpt}`, at: ctx.now().toISOString() };
    ctx.log.warn({ release: target.key, action: `remediate-${plan.action}` }, record.message);
    await finish(ctx, release, record, failed, after);
  }
}

async function finish(
  ctx: PassContext,
  release: HelmRelease,
  record: RemediationRecord,
  failed: ReturnType<typeof failedActionOf>,
  history: Awaited<ReturnType<PassContext['storage']['history']>>,
): Promise<void> {
  const { releaseName: name, namespace } = releaseTarget(release);
  await ctx.status.write(
    release,
    withInventory(remediationDoneStatus(release, record, failed, history, ctx.now()), history.deployed?.manifest, { name, namespace }),
  );
  await ctx.effects().events.record(release, remediationEvent(record), record.message);
}
