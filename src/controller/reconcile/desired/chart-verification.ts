import type { HelmRelease } from '../../../api/helmrelease.js';
import type { KubeReads } from '../ports/context.js';
import { apiErrorMessage, isForbidden, isNotFound } from '../../../core/kube/errors.js';
import type { ResolvedChartSource } from './compose-desired.js';
import type { ProvenanceChecks } from '../../charts/verification/provenance-checks.js';
import { verificationFailedMessage, type VerificationCheck } from '../../charts/verification/verification-outcome.js';

/** A key Secret as a check needs it: its data, and the uid and resourceVersion a result is kept by. */
export interface KeySecret {
  name: string;
  uid: string;
  resourceVersion: string;
  data: Record<string, string> | undefined;
}

/** A signature check failed: the message names the release, the artifact and the check. */
export class VerificationFailedError extends Error {
  override name = 'VerificationFailedError';
}

/** Reads a verify.secretRef as the HelmRelease's identity; a missing or unreadable Secret fails the check, saying which. */
export async function readKeySecret(kube: KubeReads, release: HelmRelease, name: string, field: string): Promise<KeySecret | { problem: string }> {
  const namespace = release.metadata.namespace;
  try {
    const secret = await kube.core.readNamespacedSecret({ namespace, name });
    return { name: `${namespace}/${name}`, uid: secret.metadata?.uid ?? '', resourceVersion: secret.metadata?.resourceVersion ?? '', data: secret.data };
  } catch (error) {
    if (isNotFound(error)) return { problem: `Secret ${namespace}/${name} (${field}) not found` };
    if (isForbidden(error)) return { problem: `Secret ${namespace}/${name} (${field}) may not be read: ${apiErrorMessage(error)}` };
    throw error;
  }
}

export function failVerification(release: HelmRelease, artifact: string, keys: string, failure: { check: VerificationCheck; detail?: string }): never {
  throw new VerificationFailedError(verificationFailedMessage(`${release.metadata.namespace}/${release.metadata.name}`, artifact, keys, failure));
}

/**
 * spec.chart.verify with provider pgp on an http(s) repository chart: helm's provenance check of
 * the archive (provenance-checks.ts); the source then names the verified file, which helm installs.
 * Other providers are checked where their artifacts are fetched (OCI).
 */
export async function verifyRepositoryChart(
  ports: { kube: KubeReads; provenance?: Pick<ProvenanceChecks, 'verify'> },
  release: HelmRelease,
  source: ResolvedChartSource,
): Promise<ResolvedChartSource> {
  const verify = release.spec.chart.verify;
  if (!verify || verify.provider !== 'pgp') return source;
  const artifact = `chart ${source.chartName}@${source.chartVersion}`;
  const secretName = verify.secretRef?.name ?? '';
  const keys = `Secret ${release.metadata.namespace}/${secretName} (spec.chart.verify.secretRef)`;
  const archiveUrl = source.chartSource.archiveUrl;
  if (!archiveUrl) failVerification(release, artifact, keys, { check: 'unsupported', detail: 'pgp verifies http(s) repository charts only' });
  if (!ports.provenance) failVerification(release, artifact, keys, { check: 'unsupported', detail: 'this controller has no provenance checks enabled' });
  if (!secretName) failVerification(release, artifact, keys, { check: 'key-secret', detail: 'pgp needs secretRef' });
  const secret = await readKeySecret(ports.kube, release, secretName, 'spec.chart.verify.secretRef');
  if ('problem' in secret) failVerification(release, artifact, keys, { check: 'key-secret', detail: secret.problem });
  const result = await ports.provenance.verify({
    release: `${release.metadata.namespace}/${release.metadata.name}`,
    chartName: source.chartName,
    version: source.chartVersion,
    archiveUrl,
    repository: source.chartSource.repository,
    access: source.chartSource.access,
    keySecret: secret,
  });
  if (!result.ok) failVerification(release, artifact, keys, result);
  return {
    ...source,
    chartSource: { ...source.chartSource, verifiedArchive: result.archive },
    verification: { artifact: `${source.chartName}@${source.chartVersion}`, verifiedBy: result.signedBy, provider: 'pgp' },
  };
}
