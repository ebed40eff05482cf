import { createHash } from 'node:crypto';
import type { ArtifactVerification } from '../../../api/verification.js';

/** A public key to trust, by its key name in the Secret (what "signed by" shows). */
export interface CosignKey {
  name: string;
  pem: string;
}

/** A key Secret cosign cannot use (no `.pub` key, a key that is not a PEM public key): reported, not retried. */
export class VerificationKeyError extends Error {
  override name = 'VerificationKeyError';
}

const PEM_PUBLIC_KEY = /^-----BEGIN (?:[A-Z]+ )?PUBLIC KEY-----\r?\n[A-Za-z0-9+/=\r\n]+-----END (?:[A-Z]+ )?PUBLIC KEY-----\s*$/;

/**
 * Pure: the keys of a cosign key Secret — every data key ending `.pub` (Flux's rule), each a PEM
 * public key — sorted by name so the order (and the first signer named) never depends on the API.
 * `data` is base64 as the API gives it; messages name the Secret and the key, never key material.
 */
export function cosignKeysFrom(data: Record<string, string>, where: string): CosignKey[] {
  const names = Object.keys(data)
    .filter((name) => name.endsWith('.pub'))
    .sort();
  if (names.length === 0) throw new VerificationKeyError(`${where} has no public key (a data key ending .pub)`);
  return names.map((name) => {
    const pem = Buffer.from(data[name]!, 'base64').toString('utf8').trim();
    if (!PEM_PUBLIC_KEY.test(`${pem}\n`)) throw new VerificationKeyError(`${where}: ${name} is not a PEM public key (cosign generate-key-pair writes cosign.pub)`);
    return { name, pem: `${pem}\n` };
  });
}

/**
 * Pure: what a verdict is kept under. The artifact (repository and digest), the verification
 * settings, and the key Secret's resourceVersion: a rotated key, another identity or a new digest
 * is verified anew; the same artifact at rest is not.
 */
export function verdictCacheKey(opts: {
  repository: string;
  digest: string;
  verify: ArtifactVerification;
  keySecret?: { namespace: string; name: string; resourceVersion: string };
}): string {
  const { repository, digest, verify, keySecret } = opts;
  const settings = { provider: verify.provider, secret: keySecret ?? null, identities: verify.matchOIDCIdentity ?? [] };
  return createHash('sha256').update(repository).update('\0').update(digest).update('\0').update(JSON.stringify(settings)).digest('hex');
}
