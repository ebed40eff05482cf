import type { HelmRelease } from '../../../api/helmrelease.js';
import type { TestRecord } from '../../../api/helmrelease-status.js';
import { ReleaseEvent } from '../../../api/vocabulary.js';
import { HelmError } from '../../helm/helm-error.js';
import type { ReleaseHistory, StoredRelease } from '../../../core/helm-storage/release-storage.js';
import { failedStatus, sameAttempt } from '../../status/release-status.js';
import { testPassedOrIgnoredStatus, testStartedStatus, withTestFailed } from '../../status/test-status.js';
import type { PassContext } from '../ports/context.js';
import type { DesiredRelease } from '../../../core/release/desired-release.js';
import type { ReleaseTarget } from '../../../core/release/release-target.js';
import { testFlags } from '../../helm/helm-flags.js';
import { failureIsFinal, remediationPolicy } from '../decide/remediation-decision.js';
import { testedAction, testFailureIgnoredBy } from '../decide/test-decision.js';
import type { AttemptOutcome } from './supersedable-attempt.js';

/** Why this test runs: the revision's own test (spec.test.enable), a test asked for by id (`/release test`), or both at once. */
export interface TestRun {
  scheduled: boolean;
  requestId?: string;
}

/**
 * Runs `helm test` on the deployed revision. A failure of the revision's own test is a failure of
 * the install or upgrade that made the revision, remediated by the same policy, unless ignored
 * (that action's remediation.ignoreTestFailures, else test.ignoreFailures). A test only asked for checks the running release: its failure is reported
 * (TestSuccess=False, a TestFailed Event) and nothing is undone.
 */
export async function testRelease(
  ctx: PassContext,
  release: HelmRelease,
  target: ReleaseTarget,
  desired: DesiredRelease,
  deployed: StoredRelease,
  run: TestRun = { scheduled: true },
): Promise<AttemptOutcome> {
  const requestId = run.requestId ? { requestId: run.requestId } : {};
  const { timeoutSeconds } = target.actions.test;
  await ctx.status.write(release, testStartedStatus(release, ctx.now()));
  const started = Date.now();
  try {
    const flags = testFlags(target.actions.test);
    await ctx.effects().helm.test({
      key: target.key,
      releaseName: target.releaseName,
      namespace: target.namespace,
      timeoutSeconds,
      flags,
      impersonate: target.impersonate,
    });
  } catch (error) {
    if (!(error instanceof HelmError)) throw error;
    const record: TestRecord = {
      ...requestId,
      revision: deployed.revision,
      succeeded: false,
      message: `helm test of revision ${deployed.revision} (${deployed.chartName}@${deployed.chartVersion}) failed: ${error.stderrExcerpt}`,
      at: ctx.now().toISOString(),
    };
    ctx.log.warn({ release: target.key, action: 'test', revision: deployed.revision, durationMs: Date.now() - started, ...requestId }, record.message);
    // The history says which action made the revision, whose remediation may ignore its test.
    const history = run.scheduled ? await ctx.storage.history(target.namespace, target.releaseName) : undefined;
    const ignoredBy = history ? testFailureIgnoredBy(release, testedAction(release, history, deployed)) : undefined;
    if (!history || ignoredBy) {
      const why = ignoredBy ?? 'requested';
      await ctx.status.write(release, testPassedOrIgnoredStatus(release, record, ctx.now(), why));
      await ctx.effects().events.record(release, ReleaseEvent.TestFailed, `${record.message} (${run.scheduled ? 'ignored' : 'asked for; nothing undone'})`);
      return 'succeeded';
    }
    return failTheAttempt(ctx, release, target, desired, deployed, record, history);
  }
  const record: TestRecord = {
    ...requestId,
    revision: deployed.revision,
    succeeded: true,
    message: `helm test of revision ${deployed.revision} (${deployed.chartName}@${deployed.chartVersion}) passed`,
    at: ctx.now().toISOString(),
  };
  ctx.log.info({ release: target.key, action: 'test', revision: deployed.revision, durationMs: Date.now() - started, ...requestId }, 'tests passed');
  await ctx.status.write(release, testPassedOrIgnoredStatus(release, record, ctx.now()));
  await ctx.effects().events.record(release, ReleaseEvent.TestSucceeded, record.message);
  return 'succeeded';
}

/** Records the failed test as a failed attempt of this spec, so the remediation decision takes it from here. */
async function failTheAttempt(
  ctx: PassContext,
  release: HelmRelease,
  target: ReleaseTarget,
  desired: DesiredRelease,
  deployed: StoredRelease,
  record: TestRecord,
  history: ReleaseHistory,
): Promise<AttemptOutcome> {
  const failed = testedAction(release, history, deployed);
  const sameSpec = sameAttempt(release, desired);
  const counters = {
    installFailures: sameSpec ? (release.status?.installFailures ?? 0) : 0,
    upgradeFailures: sameSpec ? (release.status?.upgradeFailures ?? 0) : 0,
  };
  const attempted: HelmRelease = { ...release, status: { ...release.status, ...counters } };
  const failures = (failed === 'install' ? counters.installFailures : counters.upgradeFailures) + 1;
  const final = failureIsFinal(remediationPolicy(release.spec, failed), failures);
  const status = failedStatus(attempted, ReleaseEvent.TestFailed, record.message, history, ctx.now(), { final, counter: failed });
  await ctx.status.write(release, {
    ...withTestFailed(status, release, record, ctx.now()),
    ...(failed === 'install' ? { upgradeFailures: counters.upgradeFailures } : { installFailures: counters.installFailures }),
    lastAttemptedGeneration: release.metadata.generation,
    lastAttemptedChartVersion: desired.chartVersion,
    ...(desired.chartDigest ? { lastAttemptedChartDigest: desired.chartDigest } : {}),
    lastAttemptedValuesDigest: desired.valuesDigest,
    lastAttemptedAction: failed,
  });
  await ctx.effects().events.record(release, ReleaseEvent.TestFailed, record.message);
  return final ? 'failed-final' : 'failed';
}
