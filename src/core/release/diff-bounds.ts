import { DIFF_BOUNDS, type ReadableDiff, type ReadableDiffLimits } from './readable-diff.js';

/**
 * Two bounds for one diff. Chat and the terminal show a plan's diff within DIFF_BOUNDS (100 objects,
 * 200 changed fields) and say what they left out; the web's plan page shows the rest, paged
 * (`/plans/<id>/diff?page=N`). So a preview computes the diff once within PAGED_DIFF_BOUNDS and
 * hands chat `withinBounds(diff, DIFF_BOUNDS)`, the same diff cut down.
 */

/**
 * What the web pages through: ten times chat's objects, five times its fields. The diff travels in
 * Redis (the preview's answer and the plan kept for its Confirm): each changed field is at most
 * ~2 kB (160-character values, 12 rows of a multi-line one), so 1,000 fields stay within ~2 MB.
 */
export const PAGED_DIFF_BOUNDS: ReadableDiffLimits = { ...DIFF_BOUNDS, objects: 1000, changes: 1000 };

/**
 * Pure: the diff as `readableDiff` would have bounded it with `limits` (fewer objects, fewer fields
 * in all), given one bounded more loosely with the same per-object and value limits. What it cuts
 * is counted in `omittedObjects` and each object's `omittedChanges`, as readableDiff counts.
 */
export function withinBounds(diff: ReadableDiff, limits: Pick<ReadableDiffLimits, 'objects' | 'changesPerObject' | 'changes'>): ReadableDiff {
  let budget = limits.changes;
  const objects = diff.objects.slice(0, limits.objects).map((object) => {
    if (object.change !== 'changed' || object.hidden) return object;
    const found = object.changes.length + object.omittedChanges;
    // readableDiff's own budget walk; the looser diff kept at least as many fields of each object.
    const allowed = Math.max(0, Math.min(limits.changesPerObject, budget));
    budget -= Math.min(allowed, found);
    const keep = Math.min(allowed, object.changes.length);
    return keep === object.changes.length ? object : { ...object, changes: object.changes.slice(0, keep), omittedChanges: found - keep };
  });
  return { counts: diff.counts, objects, omittedObjects: diff.omittedObjects + diff.objects.length - objects.length };
}
