import type { PreviewResult } from '../../core/preview/preview-protocol.js';
import type { Plan } from './plan-shape.js';

/** The object diff in a plan's lines; when it could not be computed, why (the plan stays doable). */
export function previewLines(preview: PreviewResult | undefined): string[] {
  if (!preview) return [];
  if (!preview.ok) return [`what would change is unknown: ${preview.message}`];
  return preview.lines;
}

/** What a long object diff left out of the plan's lines (posted in a thread under the plan), and the whole diff per object. */
export function previewMore(preview: PreviewResult | undefined): Pick<Plan, 'more' | 'diff'> {
  if (!preview?.ok) return {};
  return { ...(preview.rest.length > 0 ? { more: preview.rest } : {}), ...(preview.diff ? { diff: preview.diff } : {}) };
}
