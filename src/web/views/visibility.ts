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
