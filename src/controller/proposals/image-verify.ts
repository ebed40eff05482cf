import type { HelmRelease, ImageUpdate } from '../../api/helmrelease.js';
import { parseDuration } from '../../api/duration.js';
import { IMAGE_UPDATE_DEFAULTS } from '../../api/image-updates.js';
import type { ChartAccess } from '../charts/chart-access.js';
import type { ArtifactVerify } from '../charts/verification/cosign-verifier.js';
import { readVerificationKeys } from '../reconcile/desired/chart-verification.js';
import { readsAsRelease, type ReleaseReadsDeps } from './image-access.js';

/**
 * imageUpdates[].verify: who signed a tag's image. `signed`: proposed, naming the signer;
 * `refused`: not proposed (or, with allowUnsigned, proposed marked unsigned); `unknown`: cosign could
 * not reach the registry, decided at a later listing.
 */
export type ImageSignature = { kind: 'signed'; signedBy: string } | { kind: 'refused'; why: string } | { kind: 'unknown'; why: string };

export type ImageSignatureCheck = (release: HelmRelease, update: ImageUpdate, access: ChartAccess, digest: string) => Promise<ImageSignature>;

/**
 * The key Secret read as the release's identity (like its credentials, image-access.ts); the
 * verifier keeps its verdict per digest, settings and Secret version, so a tag is verified once.
 */
export function imageSignatureChecker(deps: ReleaseReadsDeps & { cosign?: ArtifactVerify; notation?: ArtifactVerify }): ImageSignatureCheck {
  return async (release, update, access, digest) => {
    const verify = update.verify!;
    if (verify.provider !== 'cosign' && verify.provider !== 'notation')
      return { kind: 'refused', why: `${verify.provider} does not verify images; use cosign or notation` };
    const verifier = deps[verify.provider];
    if (!verifier)
      return {
        kind: 'refused',
        why: `${verify.provider} is not available in this controller (${verify.provider === 'cosign' ? 'COSIGN_BIN' : 'NOTATION_VERIFY_BIN'})`,
      };
    const keys = await readVerificationKeys(
      readsAsRelease(deps, release),
      release.metadata.namespace,
      verify,
      `spec.imageUpdates (${update.repository}).verify`,
    );
    if (typeof keys === 'string') return { kind: 'refused', why: keys };
    // A refusal is asked again at the update's next listing: a signature pushed after its image is found then.
    const refusalTtlMs = parseDuration(update.interval ?? IMAGE_UPDATE_DEFAULTS.interval);
    const verdict = await verifier.verify({ repository: update.repository, digest, verify, ...keys, access, refusalTtlMs });
    if (verdict.ok) return { kind: 'signed', signedBy: verdict.signedBy };
    return verdict.kind === 'unreachable' ? { kind: 'unknown', why: verdict.message } : { kind: 'refused', why: verdict.message };
  };
}
