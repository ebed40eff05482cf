import type { HelmRelease } from '../../../api/helmrelease.js';
import type { HelmReleaseStatus } from '../../../api/helmrelease-status.js';
import { ConditionType, ReleaseEvent } from '../../../api/vocabulary.js';
import type { StoredRelease } from '../../../core/helm-storage/release-storage.js';
import { describeHolding } from '../../../core/release/freeze-match.js';
import { releaseFacts } from '../../../core/release/team-releases.js';
import { decideDrift, describeCorrection, describeDrift, driftCheckWanted, pendingDriftCorrection } from '../../drift/drift-decision.js';
import type { DriftReport, DriftTarget } from '../../drift/drift-detector.js';
import { driftMode } from '../../drift/drift-schedule.js';
import { ManifestError } from '../../drift/manifest-objects.js';
import { findCondition } from '../../status/conditions.js';
import { withCorrection, withDrifted, withoutDrifted } from '../../status/drift-status.js';
import type { Pass } from '../ports/pass.js';
import { serviceAccountUser } from '../decide/tenancy.js';

/** What the drift step did, for the pass's result. */
export type DriftOutcome = 'unchanged' | 'written' | 'reported' | 'corrected';

/**
 * The in-sync release's periodic drift step: compare the live objects with the deployed
 * revision's manifest, then say nothing (nothing drifted: no write), report (warn) or correct
 * (enabled, or a person's "Correct now"). `status` is the in-sync status it is layered on, and
 * the one write of this pass.
 */
export async function driftStep(pass: Pass, deployed: StoredRelease, status: HelmReleaseStatus): Promise<DriftOutcome> {
  const { ctx, release } = pass;
  const mode = driftMode(release.spec);
  const request = pendingDriftCorrection(release);
  if (!ctx.drift || deployed.manifest === undefined || !driftCheckWanted(mode, request)) return write(pass, withoutDrifted(status));
  const target = driftTarget(pass, deployed);
  let report: DriftReport;
  try {
    report = await ctx.drift.check(target);
  } catch (error) {
    if (!(error instanceof ManifestError)) throw error;
    // A manifest helm applied is valid YAML; one that is not was written by someone else: nothing to compare.
    ctx.log.warn({ release: pass.key, action: 'drift-check', error: error.message }, 'drift not checked');
    return write(pass, status);
  }
  if (report.problems.length > 0)
    ctx.log.warn({ release: pass.key, action: 'drift-check', problems: report.problems.slice(0, 10) }, 'some objects could not be checked');
  const gen = release.metadata.generation;
  const now = ctx.now();
  // A correction writes to the cluster like a helm action: an active Freeze holds it, and the
  // drift is reported instead (a pending "Correct now" stays pending until the freeze ends).
  const holding = ctx.freezes?.holding(releaseFacts(release), now) ?? [];
  const decided = decideDrift(mode, report, request);
  switch (decided === 'correct' && holding.length > 0 ? 'report' : decided) {
    case 'none':
      return write(
        pass,
        request
          ? withCorrection(
              status,
              { requestId: request, revision: deployed.revision, succeeded: true, message: 'Nothing had drifted', at: now.toISOString() },
              now,
              gen,
            )
          : withoutDrifted(status),
      );
    case 'report': {
      const held = holding.length > 0 ? `; correction held by ${describeHolding(holding)}` : '';
      const message = `${describeDrift(report.drifted, deployed.revision)}${held}`;
      const next = withDrifted(status, message, now, gen);
      // The same drift found again is not reported again: the condition already says it.
      if (!(await ctx.status.writeIfChanged(release, next))) return 'unchanged';
      await ctx.effects().events.record(release, ReleaseEvent.DriftDetected, message, {
        action: 'drift',
        attempt: driftSince(next),
        cause: 'periodic check',
        revision: deployed.revision,
      });
      ctx.log.warn({ release: pass.key, action: 'drift-report', objects: report.drifted.length }, 'drift detected');
      return 'reported';
    }
    case 'correct':
      return correct(pass, target, report, deployed, status, request);
  }
}

async function correct(
  pass: Pass,
  target: DriftTarget,
  report: DriftReport,
  deployed: StoredRelease,
  status: HelmReleaseStatus,
  request: string | undefined,
): Promise<DriftOutcome> {
  const { ctx, release } = pass;
  // Tells apart this drift's messages from the next one's; a correction asked for from chat edits the report's message.
  const attempt = driftSince(release.status) ?? ctx.now().toISOString();
  const result = await ctx.effects().driftCorrection!.correct(target, report);
  const now = ctx.now();
  const message = describeCorrection(result, deployed.revision);
  const succeeded = result.failed.length === 0;
  const previous = release.status?.lastDriftCorrection;
  // A correction that keeps failing the same way (no rights on one object, say) is reported once.
  const repeated = !succeeded && !request && previous && !previous.succeeded && previous.revision === deployed.revision && previous.message === message;
  const record = repeated ? previous : { ...(request ? { requestId: request } : {}), revision: deployed.revision, succeeded, message, at: now.toISOString() };
  if (!(await ctx.status.writeIfChanged(release, withCorrection(status, record, now, release.metadata.generation)))) return 'unchanged';
  const cause = request ? `correction requested (${request})` : 'periodic check';
  await ctx.effects().events.record(release, succeeded ? ReleaseEvent.DriftCorrected : ReleaseEvent.DriftDetected, message, {
    action: 'drift',
    attempt,
    cause,
    revision: deployed.revision,
    ...(request ? { requestId: request } : {}),
  });
  ctx.log.info({ release: pass.key, action: 'drift-correct', corrected: result.corrected.length, failed: result.failed.length, request }, 'drift corrected');
  return 'corrected';
}

async function write(pass: Pass, status: HelmReleaseStatus): Promise<DriftOutcome> {
  return (await pass.ctx.status.writeIfChanged(pass.release, status)) ? 'written' : 'unchanged';
}

function driftTarget({ release, target, key }: Pass, deployed: StoredRelease): DriftTarget {
  return {
    key,
    releaseName: target.releaseName,
    namespace: target.namespace,
    revision: deployed.revision,
    manifest: deployed.manifest ?? '',
    ignore: release.spec.driftDetection?.ignore,
    user: target.impersonate ? serviceAccountUser(target.impersonate) : undefined,
  };
}

/** When the current drift was first reported (the Drifted condition's transition). */
function driftSince(status: HelmRelease['status']): string | undefined {
  return findCondition(status?.conditions, ConditionType.Drifted)?.lastTransitionTime;
}
