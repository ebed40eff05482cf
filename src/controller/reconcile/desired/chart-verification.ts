import type { HelmRelease } from '../../../api/helmrelease.js';
import type { ArtifactVerification } from '../../../api/verification.js';
import { releaseTarget } from '../../../core/release/release-target.js';
import { apiErrorMessage, isForbidden, isNotFound } from '../../../core/kube/errors.js';
import type { KubeReads } from '../ports/context.js';
import type { ResolvedChartSource } from './compose-desired.js';
import type { ProvenanceChecks } from '../../charts/verification/provenance-checks.js';
import { verificationFailedMessage, type VerificationCheck } from '../../charts/verification/verification-outcome.js';
import { cosignKeysFrom, VerificationKeyError, type CosignKey } from '../../charts/verification/cosign-keys.js';
import type { ArtifactVerify } from '../../charts/verification/cosign-verifier.js';
import { notationTrustFrom, type NotationTrust } from '../../charts/verification/notation-trust.js';

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

/** The check could not be made (cosign or notation could not reach the registry): not a verdict, retried like a failed pull. */
export class VerificationUnreachableError extends Error {
  override name = 'VerificationUnreachableError';
}

/** What spec.chart.verify is checked through: helm provenance (pgp), cosign and notation, each absent when not enabled. */
export interface ChartVerifyPorts {
  kube: KubeReads;
  provenance?: Pick<ProvenanceChecks, 'verify'>;
  cosign?: ArtifactVerify;
  notation?: ArtifactVerify;
}

/** The tool each OCI provider runs, and the setting that names it (for "not available"). */
const OCI_TOOL = { cosign: 'COSIGN_BIN', notation: 'NOTATION_VERIFY_BIN' } as const;

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
 * spec.chart.verify of a repository chart, by provider — the one entry point, called before anything
 * renders or installs the chart. The source comes back with what passed (`verification`, written to
 * status.verification); a failed check throws VerificationFailedError (reported once,
 * VerificationFailed), cosign or notation not reaching the registry VerificationUnreachableError. A Git chart is
 * verified by git.verify where it is fetched (chart-source-resolution.ts).
 */
export async function verifyChart(ports: ChartVerifyPorts, release: HelmRelease, source: ResolvedChartSource): Promise<ResolvedChartSource> {
  const verify = release.spec.chart.verify;
  if (!verify) return source;
  switch (verify.provider) {
    case 'pgp':
      return verifyProvenance(ports, release, source, verify);
    case 'cosign':
    case 'notation':
      return verifyOciSignature(ports, release, source, verify, verify.provider);
  }
}

/**
 * pgp on an http(s) repository chart: helm's provenance check of the archive (provenance-checks.ts);
 * the source then names the verified file, which helm installs.
 */
async function verifyProvenance(
  ports: ChartVerifyPorts,
  release: HelmRelease,
  source: ResolvedChartSource,
  verify: ArtifactVerification,
): Promise<ResolvedChartSource> {
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

/**
 * cosign or notation on an oci:// chart: the digest helm will pull is verified with the real tool.
 * The verifier keeps its verdict per digest, settings and key Secret version, so a release at rest
 * runs neither.
 */
async function verifyOciSignature(
  ports: ChartVerifyPorts,
  release: HelmRelease,
  source: ResolvedChartSource,
  verify: ArtifactVerification,
  provider: 'cosign' | 'notation',
): Promise<ResolvedChartSource> {
  const { namespace } = release.metadata;
  const ociRef = source.chartSource.ociRef;
  const repository = ociRef?.replace(/^oci:\/\//, '');
  const artifact = repository && source.chartDigest ? `chart ${repository}@${source.chartDigest}` : `chart ${source.chartName}@${source.chartVersion}`;
  const keys = verify.secretRef
    ? `Secret ${namespace}/${verify.secretRef.name} (spec.chart.verify.secretRef)`
    : 'the identities of spec.chart.verify.matchOIDCIdentity';
  if (!repository || !source.chartDigest)
    failVerification(release, artifact, keys, { check: 'unsupported', detail: `${verify.provider} verifies oci:// charts only` });
  const verifier = ports[provider];
  if (!verifier)
    failVerification(release, artifact, keys, { check: 'unsupported', detail: `${provider} is not available in this controller (${OCI_TOOL[provider]})` });
  // The tool would ask a proxy by name, outside the host policy the other fetches keep (proxy-route.ts): refused, never bypassed.
  if (source.chartSource.access.proxy)
    failVerification(release, artifact, keys, { check: 'unsupported', detail: `${provider} does not go through spec.chart.proxySecretRef` });
  const keySet = await readVerificationKeys(ports.kube, namespace, verify, 'spec.chart.verify');
  if (typeof keySet === 'string') failVerification(release, artifact, keys, { check: 'key-secret', detail: keySet });
  const verdict = await verifier.verify({
    repository,
    digest: source.chartDigest,
    verify,
    ...keySet,
    access: source.chartSource.access,
    refusalTtlMs: releaseTarget(release).intervalMs,
  });
  if (verdict.ok) {
    const verification = {
      artifact: `${source.chartName}@${source.chartVersion}`,
      verifiedBy: verdict.signedBy,
      provider,
      digest: source.chartDigest,
    };
    return { ...source, verification };
  }
  if (verdict.kind === 'unreachable')
    throw new VerificationUnreachableError(`HelmRelease ${namespace}/${release.metadata.name}: ${artifact}: ${verdict.message}`);
  const check = verdict.kind === 'unsigned' ? 'unsigned-artifact' : verdict.kind === 'key-secret' ? 'key-secret' : 'unknown-key';
  failVerification(release, artifact, keys, { check, detail: verdict.message });
}

/**
 * The keys of a cosign or notation verify's Secret (spec.chart.verify, imageUpdates[].verify), read
 * with the clients given (the release's identity), and the Secret's resourceVersion the verdict is
 * kept under; cosign keyless (no secretRef): none. A string: why they cannot be used, naming the
 * Secret and `field`, never a key.
 */
export async function readVerificationKeys(
  kube: KubeReads,
  namespace: string,
  verify: ArtifactVerification,
  field: string,
): Promise<{ keys: CosignKey[]; trust?: NotationTrust; keySecret?: { namespace: string; name: string; resourceVersion: string } } | string> {
  if (!verify.secretRef && verify.provider === 'notation') return 'notation needs secretRef (a trust policy and certificates)';
  if (!verify.secretRef) return verify.matchOIDCIdentity?.length ? { keys: [] } : 'cosign needs secretRef (public keys) or matchOIDCIdentity (keyless)';
  const name = verify.secretRef.name;
  const where = `Secret ${namespace}/${name} (${field}.secretRef)`;
  try {
    const secret = await kube.core.readNamespacedSecret({ namespace, name });
    const keySecret = { namespace, name, resourceVersion: secret.metadata?.resourceVersion ?? '' };
    if (verify.provider === 'notation') return { keys: [], trust: notationTrustFrom(secret.data ?? {}, where), keySecret };
    return { keys: cosignKeysFrom(secret.data ?? {}, where), keySecret };
  } catch (error) {
    if (isNotFound(error)) return `${where} not found`;
    if (isForbidden(error)) return `${where} may not be read: ${apiErrorMessage(error)}`;
    if (error instanceof VerificationKeyError) return error.message;
    throw error;
  }
}
