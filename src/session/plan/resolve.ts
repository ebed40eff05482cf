import type { HelmRelease } from '../../api/helmrelease.js';
import type { ReleaseRef } from '../grammar/command.js';
import { closest } from '../grammar/suggest.js';

export type Resolution = { ok: true; release: HelmRelease } | { ok: false; message: string; candidates?: string[] };

const key = (r: HelmRelease) => `${r.metadata.namespace}/${r.metadata.name}`;

/** Pure: a bare name resolves when exactly one release has it; otherwise the candidates are listed. */
export function resolveRelease(ref: ReleaseRef, releases: readonly HelmRelease[]): Resolution {
  const matches = releases.filter((r) => r.metadata.name === ref.name && (!ref.namespace || r.metadata.namespace === ref.namespace));
  if (matches.length === 1) return { ok: true, release: matches[0]! };
  const shown = ref.namespace ? `${ref.namespace}/${ref.name}` : ref.name;
  if (matches.length > 1) {
    const candidates = matches.map(key).sort();
    return { ok: false, message: `"${shown}" is in ${matches.length} namespaces; say which: ${candidates.join(', ')}`, candidates };
  }
  const near = closest(ref.name, [...new Set(releases.map((r) => r.metadata.name))]);
  const elsewhere = ref.namespace ? releases.filter((r) => r.metadata.name === ref.name).map(key) : [];
  const hint = elsewhere.length ? `; there is ${elsewhere.join(', ')}` : near ? ` — did you mean "${near}"?` : '';
  return { ok: false, message: `no release "${shown}"${hint}` };
}
