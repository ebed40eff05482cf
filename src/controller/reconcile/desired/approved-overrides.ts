/**
 * Approved image changes (issue 35) over the declared values. An approved change is kept in the
 * HelmRelease's status, where a GitOps tool that owns the spec does not undo it, together with
 * the value the declared values had at that path when it was approved. When the declared values
 * later say something else there, a person (or Git) has spoken since: the change gives way. Pure.
 */
import { canonicalJson } from '../../../core/release/values.js';
import { valueAt } from '../../../core/release/values-path.js';
import { parseTargetPath, setAtPath, TargetPathError, type PathSegment } from './target-path.js';

export interface ApprovedOverride {
  /** Where the value goes (`image.tag`), as spec.imageUpdates[].valuesPath. */
  valuesPath: string;
  value: string;
  /** The declared value at valuesPath when the change was approved (absent: there was none). */
  declared?: unknown;
}

export type OverrideOutcome =
  | { kind: 'in-effect'; override: ApprovedOverride }
  | { kind: 'gave-way'; override: ApprovedOverride; declaredNow: unknown }
  | { kind: 'invalid'; override: ApprovedOverride; why: string };

/** The values helm gets, and what became of each override (in order; a later one on the same path wins). */
export function overlayApprovedOverrides(
  declared: Record<string, unknown>,
  overrides: readonly ApprovedOverride[],
): { values: Record<string, unknown>; outcomes: OverrideOutcome[] } {
  let values = declared;
  const outcomes: OverrideOutcome[] = [];
  for (const override of overrides) {
    let segments: PathSegment[];
    try {
      segments = parseTargetPath(override.valuesPath);
    } catch (error) {
      if (!(error instanceof TargetPathError)) throw error;
      outcomes.push({ kind: 'invalid', override, why: error.message.replace(/^targetPath/, 'valuesPath') });
      continue;
    }
    const declaredNow = valueAt(declared, segments);
    if (canonicalJson(declaredNow) !== canonicalJson(override.declared)) {
      outcomes.push({ kind: 'gave-way', override, declaredNow });
      continue;
    }
    values = setAtPath(values, segments, override.value);
    outcomes.push({ kind: 'in-effect', override });
  }
  return { values, outcomes };
}

/** The value at a path's segments: core/release/values-path.ts (the bot reads it too). */
export { valueAt } from '../../../core/release/values-path.js';
