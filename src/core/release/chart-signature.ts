import type { HelmRelease } from '../../api/helmrelease.js';

/** Which signature check a release asks for: spec.chart.verify's provider, or `git` (spec.chart.git.verify); undefined: none. */
export function requiredSignature(release: HelmRelease): 'pgp' | 'cosign' | 'notation' | 'git' | undefined {
  const { chart } = release.spec;
  return chart.verify?.provider ?? (chart.git?.verify ? 'git' : undefined);
}

/**
 * Pure: what `/release status` and a plan say of a signature check, for every provider — who signed
 * the artifact that last passed (status.verification), or that a signature is required and none has
 * passed yet. A record of another provider (the spec changed since) is not shown as this one's.
 * Undefined: the release asks for no verification.
 */
export function chartSignatureNote(release: HelmRelease): string | undefined {
  const provider = requiredSignature(release);
  if (!provider) return undefined;
  const what = provider === 'git' ? 'commit' : 'chart';
  const verified = release.status?.verification;
  if (verified && verified.provider === provider) {
    const digest = verified.digest ? `, ${verified.digest.slice(0, 19)}…` : '';
    return `${what} ${verified.artifact} signed by ${verified.verifiedBy} (${provider}${digest})`;
  }
  return `${what} signature required (${provider}): none verified yet`;
}
