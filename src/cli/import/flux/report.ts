import type { ImportResult } from './map-release.js';

/** Pure: the report on standard error, one block per Flux HelmRelease. */
export function renderReport(results: readonly ImportResult[]): string {
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
  return lines.length > 0 ? `${lines.join('\n')}\n` : 'no Flux HelmRelease found\n';
}
