import { parse as parseYaml } from 'yaml';
import { isPlainObject } from '../../core/release/values.js';

/**
 * What helmcrew decides about SOPS documents without running sops: whether a valuesFrom text is
 * one, in which format, which keys of the decryption Secret are age identities, and what sops'
 * exit status means for the message (sops' own words never reach a message: they may quote the
 * document's unencrypted parts).
 */

export type SopsFormat = 'yaml' | 'json';

/**
 * A SOPS document is a YAML or JSON map whose top-level `sops` map holds the metadata sops writes
 * (`mac` and `lastmodified`, as Flux's kustomize-controller recognises it). undefined: plain values.
 */
export function sopsFormat(text: string): SopsFormat | undefined {
  // Cheap first: a document without the word cannot be one, so plain values are parsed once only.
  if (!/\bsops"?\s*:/.test(text)) return undefined;
  let parsed: unknown;
  try {
    parsed = parseYaml(text, { maxAliasCount: 100, prettyErrors: false });
  } catch {
    return undefined;
  }
  if (!isPlainObject(parsed) || !isPlainObject(parsed.sops)) return undefined;
  const meta = parsed.sops;
  if (typeof meta.mac !== 'string' || meta.lastmodified === undefined) return undefined;
  return text.trimStart().startsWith('{') ? 'json' : 'yaml';
}

/** Keys of the decryption Secret that hold age identities (Flux: `.agekey`) and PGP keys (`.asc`). */
export interface DecryptionKeys {
  /** Every age identity line, one per line, as SOPS_AGE_KEY takes them. */
  ageKeys: string;
  /** Keys ending in .asc: PGP, which helmcrew does not use. */
  pgpKeyNames: string[];
}

export function decryptionKeys(data: Record<string, string> | undefined): DecryptionKeys {
  const ageLines: string[] = [];
  const pgpKeyNames: string[] = [];
  for (const [key, encoded] of Object.entries(data ?? {}).sort(([a], [b]) => a.localeCompare(b))) {
    if (key.endsWith('.asc')) pgpKeyNames.push(key);
    if (!key.endsWith('.agekey')) continue;
    for (const line of Buffer.from(encoded, 'base64').toString('utf8').split(/\r?\n/)) {
      const trimmed = line.trim();
      // age-keygen writes comments (# created:, # public key:) above the identity.
      if (trimmed && !trimmed.startsWith('#')) ageLines.push(trimmed);
    }
  }
  return { ageKeys: ageLines.join('\n'), pgpKeyNames };
}

/** Why sops could not decrypt, from its exit status (cmd/sops/codes in getsops/sops v3). */
export function sopsFailure(exitCode: number | undefined): string {
  switch (exitCode) {
    case 128: // CouldNotRetrieveKey
      return 'none of its age keys opens it (a wrong or missing key)';
    case 51: // MacMismatch
      return 'its MAC does not match: it was changed after it was encrypted';
    case 52: // MacNotFound
      return 'it has no MAC';
    case 24: // ErrorDecryptingMac
    case 25: // ErrorDecryptingTree
      return 'its data could not be decrypted with the data key (a damaged document)';
    case 2: // CouldNotReadInputFile
      return 'sops could not read it as a SOPS document';
    default:
      return exitCode === undefined ? 'sops did not finish' : `sops failed (exit ${exitCode})`;
  }
}
