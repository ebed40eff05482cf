/**
 * Pure: which value paths differ between two values trees. Only paths are reported, never the
 * values themselves: values may come from Secrets and plans are shown in chat.
 */
import { canonicalJson } from '../../core/release/values.js';

export interface ValuesDifference {
  added: string[];
  removed: string[];
  changed: string[];
}

export function diffValues(from: Record<string, unknown>, to: Record<string, unknown>): ValuesDifference {
  const a = flatten(from);
  const b = flatten(to);
  const diff: ValuesDifference = { added: [], removed: [], changed: [] };
  for (const [path, value] of b) {
    if (!a.has(path)) diff.added.push(path);
    // Arrays are leaves and may hold objects whose keys come in another order from another source.
    else if (canonicalJson(a.get(path)) !== canonicalJson(value)) diff.changed.push(path);
  }
  for (const path of a.keys()) if (!b.has(path)) diff.removed.push(path);
  return diff;
}

export function summarizeValuesDifference(diff: ValuesDifference, limit = 5): string {
  const parts = (
    [
      ['changed', diff.changed],
      ['added', diff.added],
      ['removed', diff.removed],
    ] as const
  )
    .filter(([, paths]) => paths.length > 0)
    .map(([what, paths]) => `${what} ${paths.slice(0, limit).join(', ')}${paths.length > limit ? ` and ${paths.length - limit} more` : ''}`);
  return parts.length ? `values: ${parts.join('; ')}` : 'values: no difference';
}

function flatten(value: unknown, prefix = '', out = new Map<string, unknown>()): Map<string, unknown> {
  if (value && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > 0) {
    for (const [key, inner] of Object.entries(value)) flatten(inner, prefix ? `${prefix}.${key}` : key, out);
  } else if (prefix) {
    out.set(prefix, value);
  }
  return out;
}
