import { ReleaseEvent } from '../../../api/vocabulary.js';
import type { DesiredRelease } from '../../../core/release/desired-release.js';
import { failedStatus } from '../../status/release-status.js';
import { failureAlreadyReported } from '../../status/status-patch.js';
import { reportRetrying } from '../actions/pull-chart.js';
import { RetryLaterError } from '../ports/context.js';
import { resolveDesiredRelease } from '../desired/resolve-desired.js';
import { done, type Pass, type PassEnd, type ReconcileResult } from '../ports/pass.js';

/**
 * What the HelmRelease asks for: the exact chart version and the composed values
 * (resolve-desired.ts). A problem with them ends the pass, reported in status.
 */
export async function desiredStage(pass: Pass): Promise<DesiredRelease | PassEnd> {
  // The deployed revision's version: with approvals asked, a range holds to it (issue 35).
  const resolved = await resolveDesiredRelease(pass.ctx, pass.release, pass.history.deployed?.chartVersion);
  if (resolved.ok) {
    await recordVerification(pass, resolved.desired);
    return resolved.desired;
  }
  switch (resolved.problem) {
    case 'values':
      // Wrong values do not fix themselves by retrying fast; the periodic check looks again.
      return reportSpecProblem(pass, ReleaseEvent.ValuesInvalid, resolved.message, 'values-invalid');
    case 'repository':
      // An operator policy: retrying cannot help until the spec or the policy changes.
      return reportSpecProblem(pass, ReleaseEvent.RepositoryNotAllowed, resolved.message, 'repository-refused');
    case 'verification':
      // Not retried fast: the same artifact fails the same way. Told once per artifact and check; the
      // release stays on what it runs, and the next artifact that passes proceeds.
      return reportSpecProblem(pass, ReleaseEvent.VerificationFailed, resolved.message, 'verification-failed');
    case 'chart':
      await reportRetrying(pass.ctx, pass.release, ReleaseEvent.ChartPullFailed, resolved.message);
      throw new RetryLaterError(resolved.message);
  }
}

/** Reported once: the same problem found again by a periodic check writes nothing and records no Event. */
async function reportSpecProblem(pass: Pass, event: ReleaseEvent, message: string, action: ReconcileResult['action']): Promise<PassEnd> {
  const { ctx, release, history } = pass;
  if (failureAlreadyReported(release, event, message)) return done(pass.key, action);
  await ctx.status.write(release, failedStatus(release, event, message, history, ctx.now()));
  await ctx.effects().events.record(release, event, message);
  return done(pass.key, action);
}

/** status.verification: what passed its signature check and who signed it; written when it changes, not at every check. */
async function recordVerification(pass: Pass, desired: DesiredRelease): Promise<void> {
  const passed = desired.verification;
  const known = pass.release.status?.verification;
  if (!passed || (known?.artifact === passed.artifact && known.verifiedBy === passed.verifiedBy && known.digest === passed.digest)) return;
  // A merge patch: only this field changes; `null` drops a digest an earlier (cosign) record had.
  const verification = { ...passed, ...(passed.digest ? {} : { digest: null as unknown as undefined }), at: pass.ctx.now().toISOString() };
  await pass.ctx.status.write(pass.release, { verification });
}
