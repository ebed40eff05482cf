/**
 * spec.imageUpdates checked, and status.approvedOverrides read and written (issue 35). Pure: what
 * CEL cannot check (a semver range, a regular expression, a values path) is named here, and the
 * status entries become the overrides overlayApprovedOverrides takes, and back.
 */
import type { HelmReleaseSpec, ImagePolicy } from '../../../api/helmrelease.js';
import type { ApprovedOverrideStatus, HelmReleaseStatus } from '../../../api/helmrelease-status.js';
import { chooseTag, type TagPolicy } from '../../../core/proposals/tag-policy.js';
import type { Proposal } from '../../../core/proposals/proposal.js';
import { canonicalJson } from '../../../core/release/values.js';
import { valueAt, type ApprovedOverride } from './approved-overrides.js';
import { parseTargetPath, TargetPathError } from './target-path.js';

/** The API's policy as tag-policy.ts takes it. */
export function tagPolicyOf(policy: ImagePolicy): TagPolicy {
  if (policy.semver !== undefined) return { semver: policy.semver };
  return { pattern: policy.pattern ?? '', ...(policy.extract ? { extract: policy.extract } : {}), ...(policy.order ? { order: policy.order } : {}) };
}

/** Why spec.imageUpdates cannot be used, naming the entry and the field; undefined when it can. */
export function imageUpdatesProblem(spec: Pick<HelmReleaseSpec, 'imageUpdates'>): string | undefined {
  const paths = new Map<string, number>();
  for (const [i, update] of (spec.imageUpdates ?? []).entries()) {
    const where = `spec.imageUpdates[${i}] (${update.repository})`;
    // An empty tag list still tells a bad range or pattern from a good one.
    const choice = chooseTag(tagPolicyOf(update.policy), []);
    if (choice.kind === 'invalid') return `${where}: ${choice.why}`;
    for (const [field, path] of [
      ['valuesPath', update.valuesPath],
      ['digestPath', update.digestPath],
    ] as const) {
      if (path === undefined) continue;
      try {
        parseTargetPath(path);
      } catch (error) {
        if (!(error instanceof TargetPathError)) throw error;
        return `${where}: ${error.message.replace(/^targetPath/, field)}`;
      }
      const other = paths.get(path);
      if (other !== undefined) return `${where}: ${field} ${JSON.stringify(path)} is also set by spec.imageUpdates[${other}]`;
      paths.set(path, i);
    }
  }
  return undefined;
}

/** status.approvedOverrides as overlayApprovedOverrides takes them (`declared` is kept as JSON in status). */
export function overridesOf(status: Pick<HelmReleaseStatus, 'approvedOverrides'> | undefined): ApprovedOverride[] {
  return (status?.approvedOverrides ?? []).map((entry) => ({
    valuesPath: entry.valuesPath,
    value: entry.value,
    ...(entry.declared !== undefined ? { declared: parseDeclared(entry.declared) } : {}),
  }));
}

function parseDeclared(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * The status entries after applying `proposals` (oldest first) over what is in effect: a value on a
 * path already overridden replaces it and keeps the declared value it replaced; a new path records
 * the declared value there now (from `values`, the declared values with the overrides in effect on
 * top: an overridden path's declared value is the override's own).
 */
export function applyProposals(
  current: readonly ApprovedOverrideStatus[],
  values: Record<string, unknown>,
  proposals: readonly Proposal[],
  at: string,
  repositoryOf: (valuesPath: string) => string | undefined,
): ApprovedOverrideStatus[] {
  const next = [...current];
  for (const proposal of proposals) {
    for (const change of proposal.values) {
      const index = next.findIndex((entry) => entry.valuesPath === change.valuesPath);
      const existing = index >= 0 ? next[index] : undefined;
      let declared: string | undefined;
      if (existing) declared = existing.declared;
      else {
        const now = safeValueAt(values, change.valuesPath);
        declared = now === undefined ? undefined : canonicalJson(now);
      }
      const repository = repositoryOf(change.valuesPath);
      const entry: ApprovedOverrideStatus = {
        valuesPath: change.valuesPath,
        value: change.to,
        ...(declared !== undefined ? { declared } : {}),
        ...(repository ? { repository } : {}),
        proposalId: proposal.id,
        ...(proposal.facts.proposedBy ? { proposedBy: proposal.facts.proposedBy } : {}),
        approvers: [...proposal.state.approvers],
        at,
      };
      if (index >= 0) next[index] = entry;
      else next.push(entry);
    }
  }
  return next;
}

function safeValueAt(values: Record<string, unknown>, path: string): unknown {
  try {
    return valueAt(values, parseTargetPath(path));
  } catch (error) {
    if (error instanceof TargetPathError) return undefined;
    throw error;
  }
}

/** `repository:tag` of each override on an image's valuesPath, for the `kubectl get hcr` column; undefined when none. */
export function approvedImagesOf(entries: readonly ApprovedOverrideStatus[], spec: Pick<HelmReleaseSpec, 'imageUpdates'>): string | undefined {
  const images = (spec.imageUpdates ?? []).flatMap((update) => {
    const entry = entries.find((e) => e.valuesPath === update.valuesPath);
    return entry ? [`${update.repository}:${entry.value}`] : [];
  });
  return images.length ? images.join(', ') : undefined;
}

/** The image update a values path belongs to (its tag or its digest), by repository. */
export function repositoryFor(spec: Pick<HelmReleaseSpec, 'imageUpdates'>, valuesPath: string): string | undefined {
  return spec.imageUpdates?.find((u) => u.valuesPath === valuesPath || u.digestPath === valuesPath)?.repository;
}

/**
 * Who proposed and approved the changes the next upgrade brings: the overrides and the approved
 * chart version written since the last attempt started (those the previous attempts already
 * carried were announced with them). After a failed attempt, since the last release that
 * succeeded before it: the retry brings the same changes, and its notifications name the same people.
 */
export function proposalDetailsOf(status: HelmReleaseStatus | undefined): { proposalId?: string; proposedBy?: string; approvers?: string[] } {
  const since = announcedUntil(status);
  const entries: Array<{ proposalId?: string; proposedBy?: string; approvers?: string[]; at: string }> = [
    ...(status?.approvedOverrides ?? []),
    ...(status?.approvedChart ? [status.approvedChart] : []),
  ];
  const fresh = entries.filter((entry) => entry.proposalId && Date.parse(entry.at) >= since);
  if (fresh.length === 0) return {};
  const approvers = [...new Set(fresh.flatMap((entry) => entry.approvers ?? []))];
  const proposers = [...new Set(fresh.flatMap((entry) => (entry.proposedBy ? [entry.proposedBy] : [])))];
  return {
    proposalId: [...new Set(fresh.map((entry) => entry.proposalId!))].join(','),
    proposedBy: proposers.length ? proposers.join(', ') : 'helmcrew',
    approvers,
  };
}

/** Overrides written before this time went out with a release that did not fail (-Infinity: none did). */
function announcedUntil(status: HelmReleaseStatus | undefined): number {
  if (!status?.lastAttemptedAt) return Number.NEGATIVE_INFINITY;
  const attempted = Date.parse(status.lastAttemptedAt);
  if (Number.isNaN(attempted)) return Number.NEGATIVE_INFINITY;
  if (status.lastAttemptFailed !== true) return attempted;
  // The newest revision deployed (or since superseded) before the failed attempt started; a
  // remediation's rollback after it does not count: it brought none of the changes.
  const succeeded = (status.history ?? [])
    .filter((entry) => (entry.status === 'deployed' || entry.status === 'superseded') && entry.deployedAt)
    .map((entry) => Date.parse(entry.deployedAt!))
    .filter((at) => !Number.isNaN(at) && at < attempted);
  return succeeded.length ? Math.max(...succeeded) : Number.NEGATIVE_INFINITY;
}
