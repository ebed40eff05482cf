import type { HelmRelease } from '../../../api/helmrelease.js';
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
  let keys: CosignKey[] = [];
  let keySecret: { namespace: string; name: string; resourceVersion: string } | undefined;
  if (verify.secretRef) {
    const read = await readKeySecret(ports.kube, namespace, verify.secretRef.name);
    if (typeof read === 'string') return failed(read);
    try {
      keys = cosignKeysFrom(read.data, `Secret ${namespace}/${verify.secretRef.name} (spec.chart.verify.secretRef)`);
    } catch (error) {
      if (error instanceof VerificationKeyError) return failed(error.message);
      throw error;
    }
    keySecret = { namespace, name: verify.secretRef.name, resourceVersion: read.resourceVersion };
  } else if (!verify.matchOIDCIdentity?.length) {
    return failed('cosign needs secretRef (public keys) or matchOIDCIdentity (keyless)');
  }
  const verdict = await ports.verifier.verify({
    repository: ociRef.replace(/^oci:\/\//, ''),
    digest: source.chartDigest,
    verify,
    keys,
    ...(keySecret ? { keySecret } : {}),
    access: source.chartSource.access,
  });
  if (verdict.ok) return { ok: true, signedBy: verdict.signedBy };
  if (verdict.kind === 'unreachable') return { ok: false, problem: 'chart', message: `${namespace}/${name}: chart ${artifact}: ${verdict.message}` };
  return failed(verdict.message);
}

async function readKeySecret(kube: KubeReads, namespace: string, name: string): Promise<{ data: Record<string, string>; resourceVersion: string } | string> {
  try {
    const secret = await kube.core.readNamespacedSecret({ namespace, name });
    return { data: secret.data ?? {}, resourceVersion: secret.metadata?.resourceVersion ?? '' };
  } catch (error) {
    if (isNotFound(error)) return `Secret ${namespace}/${name} (spec.chart.verify.secretRef) not found`;
    if (isForbidden(error)) return `Secret ${namespace}/${name} (spec.chart.verify.secretRef) may not be read: ${apiErrorMessage(error)}`;
    throw error;
  }
}
