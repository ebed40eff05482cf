import type { HelmRelease } from '../../api/helmrelease.js';
import { authorize } from '../../session/authz/authorize.js';
import type { Subject, TeamPolicy } from '../../session/authz/policy-types.js';
import { releaseAuthzTarget } from '../../session/authz/targets.js';

/**
 * Pure: may this person see a release on a page? The same rule as `/release status` in chat: a
 * Team of theirs grants `status` on it (session/authz). No rules of the web's own.
 */
export function maySee(subject: Subject, teams: readonly TeamPolicy[], release: HelmRelease, cluster?: string): boolean {
  return authorize(subject, 'status', releaseAuthzTarget(release, cluster), teams).allowed;
}

/** Pure: may this person read a plan's diff? Only when their Teams grant `status` on every release it changes (the diff shows their objects). */
export function maySeeAll(
  subject: Subject,
  teams: readonly TeamPolicy[],
  targets: ReadonlyArray<{ namespace: string; name: string; chart: string }>,
  cluster?: string,
): boolean {
  return targets.length > 0 && targets.every((t) => authorize(subject, 'status', { kind: 'release', ...t, ...(cluster ? { cluster } : {}) }, teams).allowed);
}
