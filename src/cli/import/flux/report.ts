import type { ImportResult } from './map-release.js';

/** Pure: the report on standard error, one block per Flux HelmRelease. */
export function renderReport(results: readonly ImportResult[], filter: { namespace?: string | undefined; skipped?: readonly string[] } = {}): string {
  const lines: string[] = [];
  for (const result of results) {
    const release = result.release;
    const adopt = release?.metadata.annotations?.['helmcrew.dev/adopt-release'];
    const head = release
      ? `${result.source} → helmcrew HelmRelease ${release.metadata.namespace}/${release.metadata.name}${adopt ? ` (takes over Helm release ${adopt})` : ''}`
      : `${result.source} → NOT imported`;
    lines.push(head);
    if (!result.notes.some((note) => !note.attention)) lines.push('  every field carried');
    for (const note of result.notes) lines.push(`  ${note.attention ? 'check' : 'not carried'}: ${note.path}: ${note.reason}`);
  }
  if (lines.length > 0) return `${lines.join('\n')}\n`;
  const skipped = filter.skipped ?? [];
  // Releases that are there, only elsewhere: say which, so -n is seen as the reason.
  if (filter.namespace && skipped.length > 0)
    return `no Flux HelmRelease in namespace ${filter.namespace} (-n); skipped ${skipped.length} in other namespaces: ${skipped.map((s) => `HelmRelease ${s}`).join(', ')}\n`;
  return `no Flux HelmRelease found${filter.namespace ? ` in namespace ${filter.namespace}` : ''}\n`;
}
