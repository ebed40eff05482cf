import type { DriftIgnoreRule } from '../../api/helmrelease.js';
import type { KubeObject } from '../../core/kube/cluster-objects.js';
import { formatPointer, parsePointer, removeAt } from './json-pointer.js';

/**
 * Pure: what drift means. The live object is compared with what a server-side apply of Helm's
 * manifest would make of it (a dry run, as helm's field manager, forcing ownership): that result
 * keeps every field other managers own and every default the API server fills in, so only the
 * fields the manifest sets and someone changed differ. The paths a HelmRelease ignores are taken
 * out of both sides first.
 */

/** At most this many field paths are kept per object: enough to say what moved, bounded for status and chat. */
export const MAX_PATHS_PER_OBJECT = 20;

/** The JSON pointers the rules ignore for this object; `""` (the root) ignores it whole. */
export function ignoredPaths(rules: readonly DriftIgnoreRule[] | undefined, object: Pick<KubeObject, 'kind' | 'metadata'>): string[] {
  const paths: string[] = [];
  for (const rule of rules ?? []) {
    if (rule.target?.kind !== undefined && rule.target.kind !== object.kind) continue;
    if (rule.target?.name !== undefined && rule.target.name !== object.metadata.name) continue;
    paths.push(...rule.paths);
  }
  return paths;
}

export function ignoresWholeObject(paths: readonly string[]): boolean {
  return paths.includes('');
}

/**
 * The fields (JSON pointers) where `live` differs from `applied` (the dry-run result), ignored
 * paths left out. Metadata counts only for labels and annotations the apply would add or change:
 * others' labels stay, and the rest of metadata is the server's bookkeeping. Status is never drift.
 */
export function driftedFields(live: KubeObject, applied: KubeObject, ignore: readonly string[] = []): string[] {
  const [left, right] = [structuredClone(live), structuredClone(applied)];
  for (const pointer of ignore) {
    const tokens = parsePointer(pointer);
    removeAt(left, tokens);
    removeAt(right, tokens);
  }
  const paths: string[] = [];
  for (const part of ['labels', 'annotations'] as const) {
    const want = right.metadata?.[part] ?? {};
    const have = left.metadata?.[part] ?? {};
    for (const [key, value] of Object.entries(want)) if (have[key] !== value) paths.push(formatPointer(['metadata', part, key]));
  }
  const strip = ({ metadata: _metadata, status: _status, ...rest }: KubeObject) => rest;
  collectDifferences(strip(left), strip(right), [], paths);
  return paths.slice(0, MAX_PATHS_PER_OBJECT);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function collectDifferences(have: unknown, want: unknown, at: (string | number)[], out: string[]): void {
  if (out.length >= MAX_PATHS_PER_OBJECT) return;
  if (isPlainObject(have) && isPlainObject(want)) {
    for (const key of new Set([...Object.keys(want), ...Object.keys(have)])) collectDifferences(have[key], want[key], [...at, key], out);
    return;
  }
  if (Array.isArray(have) && Array.isArray(want)) {
    // An element added or removed is the list's change; same length: say which element moved.
    if (have.length !== want.length) out.push(formatPointer(at));
    else for (let i = 0; i < want.length; i++) collectDifferences(have[i], want[i], [...at, i], out);
    return;
  }
  if (have !== want) out.push(formatPointer(at));
}
