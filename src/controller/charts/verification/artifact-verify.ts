import type { ArtifactVerification } from '../../../api/verification.js';
import type { ChartAccess } from '../../../core/release/desired-release.js';
import type { CosignKey } from './cosign-keys.js';
import type { NotationTrust } from './notation-trust.js';

/** One artifact to verify: `host[:port]/path` and the digest cosign or notation checks (never a tag: a tag may move). */
export interface VerifyRequest {
  repository: string;
  digest: string;
  verify: ArtifactVerification;
  /** The key Secret's keys (cosign-keys.ts); empty: keyless, by verify.matchOIDCIdentity. */
  keys: CosignKey[];
  /** notation: the trust policy and certificates of the key Secret (notation-trust.ts). */
  trust?: NotationTrust;
  keySecret?: { namespace: string; name: string; resourceVersion: string };
  /** The registry credentials and TLS material the artifact is pulled with: the tool uses the same. */
  access: ChartAccess;
  /** How long a refusal holds before the tool is asked again (the release's interval): a signature pushed just after its artifact is then found. */
  refusalTtlMs?: number;
}

/**
 * `signedBy`: the key's name in the Secret, or the certificate's identity (keyless, notation).
 * `key-secret`: the Secret's trust material was refused by the tool (notation: an invalid trust policy).
 */
export type Verdict = { ok: true; signedBy: string } | { ok: false; kind: 'unsigned' | 'untrusted' | 'key-secret' | 'unreachable'; message: string };

/** The port a pass verifies through. */
export interface ArtifactVerify {
  verify(request: VerifyRequest): Promise<Verdict>;
}
