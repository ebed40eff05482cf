import { TEST_REQUEST_ANNOTATION } from '../../../api/annotations.js';
import type { HelmRelease } from '../../../api/helmrelease.js';
import type { ReleaseHistory, StoredRelease } from '../../../core/helm-storage/release-storage.js';
import type { FailedAction } from '../../../core/release/failed-action.js';

/** Pure decisions about `helm test` (spec.test, Flux's names). */

export function testsWanted(release: HelmRelease): boolean {
  return release.spec.test?.enable === true;
}

/** The deployed revision has not been tested yet (each revision is tested once, after its install or upgrade). */
export function untested(release: HelmRelease, deployed: StoredRelease): boolean {
  return testsWanted(release) && release.status?.lastTest?.revision !== deployed.revision;
}

/**
 * `/release test` asked for (the annotation) and not handled yet (status.lastTest.requestId): the
 * id to record, whether or not spec.test.enable is set.
 */
export function pendingTestRequest(release: HelmRelease): string | undefined {
  const id = release.metadata.annotations?.[TEST_REQUEST_ANNOTATION]?.slice(0, 100);
  if (!id) return undefined;
  return release.status?.lastTest?.requestId === id ? undefined : id;
}

/**
 * The field that says a failed test of the revision's own run (spec.test.enable) is only reported,
 * not remediated: the tested action's remediation.ignoreTestFailures, else test.ignoreFailures
 * (Flux's order). Undefined: the failure is remediated.
 */
export function testFailureIgnoredBy(release: HelmRelease, tested: FailedAction): string | undefined {
  const own = release.spec[tested]?.remediation?.ignoreTestFailures;
  if (own !== undefined) return own ? `${tested}.remediation.ignoreTestFailures` : undefined;
  return release.spec.test?.ignoreFailures === true ? 'test.ignoreFailures' : undefined;
}

/**
 * A failed test counts as a failure of the action that made the revision: the attempt recorded
 * for this generation, else (tests just enabled on a release) an upgrade when an earlier
 * revision was deployed, an install when none was.
 */
export function testedAction(release: HelmRelease, history: ReleaseHistory, deployed: StoredRelease): FailedAction {
  const status = release.status;
  if (status && status.lastAttemptedGeneration === release.metadata.generation) {
    if (status.lastAttemptedAction === 'upgrade') return 'upgrade';
    if (status.lastAttemptedAction === 'install' || status.lastAttemptedAction === 'reinstall') return 'install';
  }
  return history.releases.some((r) => r.revision < deployed.revision && r.status === 'superseded') ? 'upgrade' : 'install';
}
