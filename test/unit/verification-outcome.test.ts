import { describe, expect, it } from 'vitest';
import {
  gitVerifyOutcome,
  helmVerifyOutcome,
  verificationCacheKey,
  verificationFailedMessage,
} from '../../src/controller/charts/verification/verification-outcome.js';
import { archiveFileName } from '../../src/controller/charts/verification/provenance-checks.js';

// Output as helm v4.2.4, git 2.39 and gpg 2.2 print it.
describe('helmVerifyOutcome: helm verify exit status and output → passed (by whom) or the failed check', () => {
  it.each([
    {
      name: 'verified',
      exit: 0,
      out: 'Signed by: Chart Signer <s@x>\nUsing Key With Fingerprint: ACE42C838F557BBD567A8FA28C0BE10A6AEA50AB\nChart Hash Verified: sha256:e6\n',
      want: { ok: true, signedBy: 'Chart Signer <s@x> (key 8C0BE10A6AEA50AB)' },
    },
    { name: 'exit 0 naming no signer is no pass', exit: 0, out: '', want: { ok: false, check: 'bad-signature' } },
    {
      name: 'no .prov',
      exit: 1,
      out: 'Error: could not load provenance file n.tgz.prov: stat n.tgz.prov: no such file or directory',
      want: { ok: false, check: 'no-provenance' },
    },
    {
      name: 'tampered archive',
      exit: 1,
      out: 'Error: sha256 sum does not match for m-0.1.0.tgz: "sha256:e6" != "sha256:1a"',
      want: { ok: false, check: 'digest-mismatch' },
    },
    {
      name: 'renamed archive',
      exit: 1,
      out: 'Error: provenance does not contain a SHA for a file named "t.tgz"',
      want: { ok: false, check: 'digest-mismatch' },
    },
    { name: 'unknown key', exit: 1, out: 'Error: openpgp: signature made by unknown entity', want: { ok: false, check: 'unknown-key' } },
    { name: 'garbage .prov', exit: 1, out: 'Error: signature block not found', want: { ok: false, check: 'malformed-provenance' } },
    { name: 'unreadable keyring', exit: 1, out: 'Error: failed to load keyring: openpgp: invalid data', want: { ok: false, check: 'key-secret' } },
    { name: 'anything else', exit: 2, out: 'Error: boom', want: { ok: false, check: 'bad-signature' } },
  ])('$name', ({ exit, out, want }) => {
    expect(helmVerifyOutcome(exit, out)).toMatchObject(want);
  });
});

describe('gitVerifyOutcome: git verify-commit/verify-tag --raw → passed (by whom) or the failed check', () => {
  const labels = new Map([['helmcrew-key-1', 'ci-bot@example']]);
  it.each([
    {
      name: 'a good PGP signature',
      what: 'commit' as const,
      exit: 0,
      err: '[GNUPG:] NEWSIG s@x\n[GNUPG:] GOODSIG 8C0BE10A6AEA50AB Chart Signer <s@x>\n[GNUPG:] TRUST_UNDEFINED 0 pgp\n',
      want: { ok: true, signedBy: 'Chart Signer <s@x> (key 8C0BE10A6AEA50AB)' },
    },
    {
      name: 'a good SSH signature: the key comment',
      what: 'commit' as const,
      exit: 0,
      err: 'Good "git" signature for helmcrew-key-1 with ED25519 key SHA256:9ipYUuc63G7\n',
      want: { ok: true, signedBy: 'ci-bot@example (ED25519 SHA256:9ipYUuc63G7)' },
    },
    { name: 'unsigned commit', what: 'commit' as const, exit: 1, err: '', want: { ok: false, check: 'unsigned-commit' } },
    { name: 'unsigned tag', what: 'tag' as const, exit: 1, err: 'error: no signature found\n', want: { ok: false, check: 'unsigned-tag' } },
    {
      name: 'a PGP key not given',
      what: 'commit' as const,
      exit: 1,
      err: '[GNUPG:] ERRSIG 8C0BE10A6AEA50AB 22 8 00 1795891185 9 ACE4\n[GNUPG:] NO_PUBKEY 8C0BE10A6AEA50AB\n',
      want: { ok: false, check: 'unknown-key' },
    },
    {
      name: 'an SSH key not given',
      what: 'commit' as const,
      exit: 1,
      err: 'Good "git" signature with ED25519 key SHA256:9ip\nNo principal matched.\n',
      want: { ok: false, check: 'unknown-key' },
    },
    { name: 'a bad PGP signature', what: 'commit' as const, exit: 1, err: '[GNUPG:] BADSIG 8C0B Chart Signer\n', want: { ok: false, check: 'bad-signature' } },
    { name: 'exit 0 without a signer is no pass', what: 'commit' as const, exit: 0, err: '', want: { ok: false, check: 'bad-signature' } },
  ])('$name', ({ what, exit, err, want }) => {
    expect(gitVerifyOutcome(what, exit, err, labels)).toMatchObject(want);
  });
});

describe('verificationFailedMessage', () => {
  it('names the release, the artifact and the check', () => {
    expect(verificationFailedMessage('web/unicorn', 'chart unicorn@2.0.0', 'Secret web/keys (spec.chart.verify.secretRef)', { check: 'unknown-key' })).toBe(
      'HelmRelease web/unicorn: chart unicorn@2.0.0 failed verification: it is signed by a key that is not among the keys of Secret web/keys (spec.chart.verify.secretRef); nothing of it is rendered or installed',
    );
    expect(verificationFailedMessage('web/u', 'x', 'k', { check: 'key-secret', detail: 'Secret web/k not found' })).toContain(
      'the keys in k cannot be used (Secret web/k not found)',
    );
  });
});

describe('verificationCacheKey', () => {
  const base = { artifact: 'https://c/u-1.tgz|u@1', secretUid: 'uid-1', secretResourceVersion: '10' };
  it.each([
    { name: 'another artifact', other: { ...base, artifact: 'https://c/u-2.tgz|u@2' } },
    { name: 'the Secret changed (a rotated key)', other: { ...base, secretResourceVersion: '11' } },
    { name: 'another Secret of the same name', other: { ...base, secretUid: 'uid-2' } },
    { name: 'another mode', other: { ...base, mode: 'Tag' } },
  ])('changes with $name', ({ other }) => {
    expect(verificationCacheKey(other)).not.toBe(verificationCacheKey(base));
  });
  it('is the same for the same inputs', () => {
    expect(verificationCacheKey({ ...base })).toBe(verificationCacheKey(base));
  });
});

describe('archiveFileName', () => {
  it.each([
    { url: 'https://charts.example/unicorn-1.0.0.tgz', want: 'unicorn-1.0.0.tgz' },
    { url: 'https://charts.example/a/b/unicorn-1.0.0%2Bmeta.tgz', want: 'unicorn-1.0.0+meta.tgz' },
    { url: 'https://charts.example/download?id=3', want: 'unicorn-1.0.0.tgz' },
    { url: 'https://charts.example/..%2F..%2Fetc.tgz', want: 'unicorn-1.0.0.tgz' },
  ])('$url → $want', ({ url, want }) => {
    expect(archiveFileName(url, 'unicorn', '1.0.0')).toBe(want);
  });
});
