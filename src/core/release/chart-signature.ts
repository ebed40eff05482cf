import type { HelmRelease } from '../../api/helmrelease.js';

/**
 * Pure: what `/release status` and a plan say of spec.chart.verify — who signed the chart last
 * attempted (status.lastAttemptedChartVerification), or that a signature is required and none has
 * verified yet. Undefined: the release asks for no verification.
 */
export function chartSignatureNote(release: HelmRelease): string | undefined {
  const verify = release.spec.chart.verify;
  if (!verify) return undefined;
  const verified = release.status?.lastAttemptedChartVerification;
  if (verified) return `chart signed by ${verified.signedBy} (${verified.provider}, ${verified.digest.slice(0, 19)}…)`;
  return `chart signature required (${verify.provider}): none verified yet`;
}
