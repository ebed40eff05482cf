import type { HelmRelease } from '../../api/helmrelease.js';
import { canonicalJson } from '../../core/release/values.js';

/** A value shown on a page, or masked with why. */
export interface ValueRow {
  path: string;
  value: string;
  masked: boolean;
}

export const MASK = '••••••';

/** Key names that hold secrets by convention: masked wherever the value came from. */
const SECRET_NAME = /pass(word)?|secret|token|credential|private|api[-_]?key|access[-_]?key|auth|cert|\bkey$/i;

/**
 * Pure: the values helm was given (the latest revision's), one row per leaf, with secrets masked.
 * A value is shown only when the HelmRelease itself declares it at that path (spec.values, which
 * anyone reading the object sees) or an approved change put it there (status.approvedOverrides),
 * and its key does not name a secret. Everything else came from valuesFrom — a ConfigMap or a
 * Secret the page cannot tell apart without reading it — and is masked: failing closed.
 */
export function valuesView(release: HelmRelease, given: Record<string, unknown> | undefined): ValueRow[] {
  const declared = leaves(release.spec.values ?? {});
  const approved = new Map((release.status?.approvedOverrides ?? []).map((o) => [o.valuesPath, o.value]));
  const source = given ?? release.spec.values ?? {};
  return [...leaves(source)].map(([path, value]) => {
    const text = typeof value === 'string' ? value : canonicalJson(value);
    const visible =
      !SECRET_NAME.test(path.split('.').pop() ?? path) &&
      ((declared.has(path) && canonicalJson(declared.get(path)) === canonicalJson(value)) || approved.get(path) === text);
    return { path, value: visible ? text : MASK, masked: !visible };
  });
}

function leaves(value: unknown, prefix = '', out = new Map<string, unknown>()): Map<string, unknown> {
  if (value && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > 0) {
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) leaves(child, prefix ? `${prefix}.${key}` : key, out);
  } else if (prefix) out.set(prefix, value);
  return out;
}
