import type { HelmRelease } from '../../../api/helmrelease.js';
import type { ArtifactVerification } from '../../../api/verification.js';
import { releaseTarget } from '../../../core/release/release-target.js';
import { apiErrorMessage, isForbidden, isNotFound } from '../../../core/kube/errors.js';
import type { KubeReads } from '../ports/context.js';
import { cosignKeysFrom, VerificationKeyError, type CosignKey } from '../../charts/verify/cosign-keys.js';
import type { ArtifactVerify } from '../../charts/verify/cosign-verifier.js';
import type { ResolvedChartSource } from './compose-desired.js';

/** `signedBy` absent: nothing to verify (no spec.chart.verify, or pgp: the HTTP repository path's own). */
export type ChartVerificationOutcome = { ok: true; signedBy?: string } | { ok: false; problem: 'verification' | 'chart'; message: string };

/**
 * spec.chart.verify for an oci:// chart: the digest helm will pull is verified with cosign before
 * anything renders or installs it. The key Secret is read as the HelmRelease's identity; the
 * verifier keeps its verdict per digest, settings and Secret resourceVersion, so a release at rest
 * runs no cosign. `verification`: reported once (VerificationFailed); `chart`: cosign could not
 * reach the registry, retried like a failed pull.
 */
export async function verifyChart(
  ports: { kube: KubeReads; verifier?: ArtifactVerify },
  release: HelmRelease,
  source: ResolvedChartSource,
): Promise<ChartVerificationOutcome> {
  const verify = release.spec.chart.verify;
  if (!verify || verify.provider === 'pgp') return { ok: true };
  const { namespace, name } = release.metadata;
  const ociRef = source.chartSource.ociRef;
  const artifact = ociRef && source.chartDigest ? `${ociRef.replace(/^oci:\/\//, '')}@${source.chartDigest}` : `${source.chartName} ${source.chartVersion}`;
  const failed = (check: string) => ({
    ok: false as const,
    problem: 'verification' as const,
    message: `${namespace}/${name}: chart ${artifact} failed verification (${check})`,
  });
  if (!ociRef || !source.chartDigest) return failed(`${verify.provider} verifies oci:// charts only`);
  if (verify.provider === 'notation') return failed('notation is not supported by this controller; use cosign');
  if (!ports.verifier) return failed('cosign is not available in this controller (COSIGN_BIN)');
  const keys = await readVerificationKeys(ports.kube, namespace, verify, 'spec.chart.verify');
  if (typeof keys === 'string') return failed(keys);
  const verdict = await ports.verifier.verify({
    repository: ociRef.replace(/^oci:\/\//, ''),
    digest: source.chartDigest,
    verify,
    ...keys,
    access: source.chartSource.access,
    refusalTtlMs: releaseTarget(release).intervalMs,
  });
  if (verdict.ok) return { ok: true, signedBy: verdict.signedBy };
  if (verdict.kind === 'unreachable') return { ok: false, problem: 'chart', message: `${namespace}/${name}: chart ${artifact}: ${verdict.message}` };
  return failed(verdict.message);
}

/**
 * The keys of a cosign verify's Secret, read with the clients given (the release's identity), and
 * the Secret's resourceVersion the verdict is kept under; keyless (no secretRef): none. A string:
 * why they cannot be used, naming the Secret and `field`, never a key.
 */
export async function readVerificationKeys(
  kube: KubeReads,
  namespace: string,
  verify: ArtifactVerification,
  field: string,
): Promise<{ keys: CosignKey[]; keySecret?: { namespace: string; name: string; resourceVersion: string } } | string> {
  if (!verify.secretRef) return verify.matchOIDCIdentity?.length ? { keys: [] } : 'cosign needs secretRef (public keys) or matchOIDCIdentity (keyless)';
  const name = verify.secretRef.name;
  const where = `Secret ${namespace}/${name} (${field}.secretRef)`;
  try {
    const secret = await kube.core.readNamespacedSecret({ namespace, name });
    return { keys: cosignKeysFrom(secret.data ?? {}, where), keySecret: { namespace, name, resourceVersion: secret.metadata?.resourceVersion ?? '' } };
  } catch (error) {
    if (isNotFound(error)) return `${where} not found`;
    if (isForbidden(error)) return `${where} may not be read: ${apiErrorMessage(error)}`;
    if (error instanceof VerificationKeyError) return error.message;
    throw error;
  }
}
