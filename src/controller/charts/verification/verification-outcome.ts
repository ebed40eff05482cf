/**
 * Pure: what a signature check's exit status and output mean (helm verify, git verify-commit and
 * verify-tag; cosign's: cosign-outcome.ts), the message a failure is reported with, and what a result is cached by.
 */
import { createHash } from 'node:crypto';

/** Which check failed: each has its own sentence (CHECK_TEXT). */
export type VerificationCheck =
  | 'no-provenance'
  | 'digest-mismatch'
  | 'unknown-key'
  | 'malformed-provenance'
  | 'key-secret'
  | 'unsigned-commit'
  | 'unsigned-tag'
  | 'no-tag'
  | 'bad-signature'
  | 'unsigned-artifact'
  | 'unsupported';

export type VerificationOutcome = { ok: true; signedBy: string } | { ok: false; check: VerificationCheck; detail?: string };

/** `helm verify --keyring K chart.tgz` (the .prov beside it): exit status and stdout + stderr. */
export function helmVerifyOutcome(exitCode: number, output: string): VerificationOutcome {
  if (exitCode === 0) {
    const uid = /^Signed by: (.+)$/m.exec(output)?.[1]?.trim();
    const fingerprint = /^Using Key With Fingerprint: ([0-9A-Fa-f]+)$/m.exec(output)?.[1];
    if (uid || fingerprint) return { ok: true, signedBy: [uid, fingerprint ? `(key ${fingerprint.slice(-16)})` : ''].filter(Boolean).join(' ') };
    // helm said nothing about a signer: not a verification we can show as passed.
    return { ok: false, check: 'bad-signature', detail: 'helm verify named no signer' };
  }
  if (/could not load provenance file|\.prov: no such file/i.test(output)) return { ok: false, check: 'no-provenance' };
  if (/sha256 sum does not match|does not contain a SHA for a file/i.test(output)) return { ok: false, check: 'digest-mismatch' };
  if (/signature made by unknown entity|no such key|unknown issuer/i.test(output)) return { ok: false, check: 'unknown-key' };
  if (/failed to load keyring/i.test(output)) return { ok: false, check: 'key-secret', detail: 'helm could not read the keyring' };
  if (/signature block not found|openpgp|armor|provenance/i.test(output)) return { ok: false, check: 'malformed-provenance' };
  return { ok: false, check: 'bad-signature' };
}

/**
 * `git verify-commit --raw` / `git verify-tag --raw`: stderr carries gpg's status lines (GOODSIG,
 * ERRSIG, NO_PUBKEY) or ssh-keygen's sentence. `labels`: the allowed signers' principals → shown name.
 */
export function gitVerifyOutcome(
  what: 'commit' | 'tag',
  exitCode: number,
  stderr: string,
  labels: ReadonlyMap<string, string> = new Map(),
): VerificationOutcome {
  const goodPgp = /^\[GNUPG:\] GOODSIG ([0-9A-F]+) (.+)$/m.exec(stderr);
  const goodSsh = /Good "git" signature for (\S+) with (\S+) key (SHA256:\S+)/.exec(stderr);
  if (exitCode === 0 && goodPgp) return { ok: true, signedBy: `${goodPgp[2]!.trim()} (key ${goodPgp[1]})` };
  if (exitCode === 0 && goodSsh) return { ok: true, signedBy: `${labels.get(goodSsh[1]!) ?? goodSsh[1]} (${goodSsh[2]} ${goodSsh[3]})` };
  if (exitCode === 0) return { ok: false, check: 'bad-signature', detail: 'git named no signer' };
  if (/NO_PUBKEY|No principal matched|is not in allowed signers/i.test(stderr)) return { ok: false, check: 'unknown-key' };
  if (/^\[GNUPG:\] (BADSIG|ERRSIG)/m.test(stderr) || /Signature verification failed|Could not verify signature/i.test(stderr)) return { ok: false, check: 'bad-signature' };
  // git prints nothing for an unsigned commit, "no signature found" for an unsigned tag.
  if (stderr.trim() === '' || /no signature found/i.test(stderr)) return { ok: false, check: what === 'tag' ? 'unsigned-tag' : 'unsigned-commit' };
  return { ok: false, check: 'bad-signature' };
}

const CHECK_TEXT: Record<VerificationCheck, (keys: string) => string> = {
  'no-provenance': () => 'the repository has no .prov (provenance file) beside the chart',
  'digest-mismatch': () => "the .prov does not match the chart's digest: the archive is not the one that was signed",
  'unknown-key': (keys) => `it is signed by a key that is not among the keys of ${keys}`,
  'malformed-provenance': () => 'its .prov is not a signed provenance file helm can read',
  'key-secret': (keys) => `the keys in ${keys} cannot be used`,
  'unsigned-commit': () => 'the commit is not signed',
  'unsigned-tag': () => 'the tag is not signed (or is a lightweight tag, which cannot be)',
  'no-tag': () => 'mode Tag needs a tag: ref.tag, ref.semver or ref.name refs/tags/…',
  'bad-signature': () => 'its signature does not verify',
  'unsigned-artifact': () => 'it is not signed',
  unsupported: () => 'it cannot be checked this way',
};

/**
 * The message of a failed check: the release, the artifact (chart@version or repository@commit)
 * and the check. Reported once per message (the same failure found again writes nothing).
 */
export function verificationFailedMessage(release: string, artifact: string, keys: string, failure: { check: VerificationCheck; detail?: string }): string {
  const why = CHECK_TEXT[failure.check](keys) + (failure.detail ? ` (${failure.detail})` : '');
  return `HelmRelease ${release}: ${artifact} failed verification: ${why}; nothing of it is rendered or installed`;
}

/** What a check's result is kept by: the artifact, the key Secret's identity and version (a rotated key checks again). */
export function verificationCacheKey(parts: { artifact: string; secretUid: string; secretResourceVersion: string; mode?: string }): string {
  return createHash('sha256').update(JSON.stringify([parts.artifact, parts.mode ?? '', parts.secretUid, parts.secretResourceVersion])).digest('hex');
}
