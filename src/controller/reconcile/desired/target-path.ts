/**
 * valuesFrom[].targetPath, with Flux's semantics (fluxcd/pkg chartutil ReplacePathValue and
 * ReplacePathLiteralValue): the key's whole content is put at a helm --set path. Pure.
 * The value is typed as --set types it (true/false, null, integers without a leading zero),
 * unless it is quoted ('…' or "…", quotes removed) or `literal` (one string, verbatim). Unlike
 * --set, a comma never starts another assignment: the content is always one value.
 */

export { parseTargetPath, TargetPathError, type PathSegment } from '../../../core/release/values-path.js';
import type { PathSegment } from '../../../core/release/values-path.js';

/** The value as --set would type it; `literal`: the text itself. */
export function targetPathValue(text: string, literal: boolean): unknown {
  if (literal) return text;
  if (text.length >= 2 && ((text.startsWith("'") && text.endsWith("'")) || (text.startsWith('"') && text.endsWith('"')))) return text.slice(1, -1);
  const lower = text.toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  if (lower === 'null') return null;
  if (text === '0') return 0;
  if (/^-?[1-9][0-9]*$/.test(text) && Number.isSafeInteger(Number(text))) return Number(text);
  return text;
}

/** A copy of `values` with `value` at `segments`; maps and lists on the way are created as needed (list gaps are null, as in helm). */
export function setAtPath(values: Record<string, unknown>, segments: PathSegment[], value: unknown): Record<string, unknown> {
  return place(values, segments, value) as Record<string, unknown>;
}

function place(node: unknown, segments: PathSegment[], value: unknown): unknown {
  const [first, ...rest] = segments;
  if (!first) return value;
  if ('index' in first) {
    const list = Array.isArray(node) ? [...(node as unknown[])] : [];
    while (list.length < first.index) list.push(null);
    list[first.index] = place(list[first.index], rest, value);
    return list;
  }
  const map = node !== null && typeof node === 'object' && !Array.isArray(node) ? { ...(node as Record<string, unknown>) } : {};
  map[first.key] = place(map[first.key], rest, value);
  return map;
}
