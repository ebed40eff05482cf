import type { Condition, HelmReleaseStatus } from '../../api/helmrelease-status.js';
import { canonicalJson } from '../../core/release/values.js';

/**
 * Fields that record when a pass ran rather than what it found. A patch that would change only
 * these is not worth a write: at 1000 releases and a 1-minute interval that would be ~17 writes a
 * second to the API server (and as many watch events to every client) for nothing.
 */
const BOOKKEEPING_FIELDS: ReadonlySet<string> = new Set<keyof HelmReleaseStatus>(['lastReconciledAt']);

/**
 * Pure: would merge-patching `patch` onto `current` change anything but bookkeeping? Conditions
 * are compared as a set keyed by type (the list is replaced as a whole by a merge patch, and its
 * order carries no meaning); every field of each condition counts, so a new observedGeneration,
 * reason, message or transition time is a change and is written (kstatus reads them).
 */
export function statusPatchChangesNothing(current: HelmReleaseStatus | undefined, patch: HelmReleaseStatus): boolean {
  const before = (current ?? {}) as Record<string, unknown>;
  for (const [field, value] of Object.entries(patch)) {
    if (value === undefined || BOOKKEEPING_FIELDS.has(field)) continue;
    if (field === 'conditions') {
      if (!sameConditions(current?.conditions, value as Condition[])) return false;
    } else if (canonicalJson(before[field]) !== canonicalJson(value)) {
      return false;
    }
  }
  return true;
}

function sameConditions(a: Condition[] | undefined, b: Condition[]): boolean {
  const byType = (list: Condition[]) => canonicalJson([...list].sort((x, y) => x.type.localeCompare(y.type)));
  return byType(a ?? []) === byType(b);
}

/**
 * Pure: does status already report this very failure for the current generation (Ready=False,
 * same reason and message)? Then a periodic check that finds the same problem again (wrong
 * values, a refused repository) writes nothing and records no second Event.
 */
export function failureAlreadyReported(release: { metadata: { generation?: number }; status?: HelmReleaseStatus }, reason: string, message: string): boolean {
  const gen = release.metadata.generation;
  const ready = release.status?.conditions?.find((c) => c.type === 'Ready');
  return (
    release.status?.observedGeneration === gen &&
    ready?.status === 'False' &&
    ready.reason === reason &&
    ready.message === message &&
    ready.observedGeneration === gen
  );
}
