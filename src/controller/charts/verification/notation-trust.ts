import { VerificationKeyError } from './cosign-keys.js';

/** A notation key Secret's contents: the trust policy and the certificates it trusts, by key name. */
export interface NotationTrust {
  trustPolicy: string;
  certificates: Array<{ name: string; pem: string }>;
}

export const TRUST_POLICY_KEY = 'trustpolicy.json';
const CERTIFICATE = /-----BEGIN CERTIFICATE-----\r?\n[A-Za-z0-9+/=\r\n]+-----END CERTIFICATE-----/;
const KEY_NAME = /^[A-Za-z0-9._-]+$/;

/**
 * Pure: the trust policy and certificates of a notation Secret, as Flux reads one: `trustpolicy.json`
 * and every data key ending `.crt` or `.pem`, each a PEM certificate (sorted by name). The policy must
 * be a JSON object; its meaning (statements, scopes, identities) is notation-go's to judge.
 * `data` is base64 as the API gives it; messages name the Secret and the key, never its content.
 */
export function notationTrustFrom(data: Record<string, string>, where: string): NotationTrust {
  const policy = data[TRUST_POLICY_KEY];
  if (policy === undefined) throw new VerificationKeyError(`${where} has no ${TRUST_POLICY_KEY} (the notation trust policy)`);
  const trustPolicy = Buffer.from(policy, 'base64').toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(trustPolicy);
  } catch {
    throw new VerificationKeyError(`${where}: ${TRUST_POLICY_KEY} is not JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new VerificationKeyError(`${where}: ${TRUST_POLICY_KEY} is not a trust policy document`);
  const names = Object.keys(data)
    .filter((name) => name.endsWith('.crt') || name.endsWith('.pem'))
    .sort();
  if (names.length === 0) throw new VerificationKeyError(`${where} has no certificate (a data key ending .crt or .pem)`);
  const certificates = names.map((name) => {
    const pem = Buffer.from(data[name]!, 'base64').toString('utf8');
    // The name becomes a file name in the trust store folder: only plain names.
    if (!KEY_NAME.test(name)) throw new VerificationKeyError(`${where}: ${name} is not a plain file name`);
    if (!CERTIFICATE.test(pem)) throw new VerificationKeyError(`${where}: ${name} is not a PEM certificate`);
    return { name, pem };
  });
  return { trustPolicy, certificates };
}
