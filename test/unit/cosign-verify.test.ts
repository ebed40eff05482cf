import { describe, expect, it } from 'vitest';
import type { ArtifactVerification } from '../../src/api/verification.js';
import { cosignKeysFrom, verdictCacheKey, VerificationKeyError } from '../../src/controller/charts/verification/cosign-keys.js';
import { cosignOutcome } from '../../src/controller/charts/verification/cosign-outcome.js';
import { verdictOf } from '../../src/controller/charts/verification/cosign-verifier.js';

const PEM = '-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEabc+/=\n-----END PUBLIC KEY-----\n';
const b64 = (s: string) => Buffer.from(s).toString('base64');
const WHERE = 'Secret ns/keys (spec.chart.verify.secretRef)';

describe('cosignKeysFrom: which keys of a Secret are trusted', () => {
  it.each([
    { name: 'one .pub key', data: { 'cosign.pub': b64(PEM) }, want: ['cosign.pub'] },
    {
      name: 'every .pub key, sorted; other keys ignored',
      data: { 'z.pub': b64(PEM), 'a.pub': b64(PEM), 'cosign.key': b64('private') },
      want: ['a.pub', 'z.pub'],
    },
    { name: 'a key without a trailing newline', data: { 'k.pub': b64(PEM.trim()) }, want: ['k.pub'] },
  ] as Array<{ name: string; data: Record<string, string>; want: string[] }>)('$name', ({ data, want }) => {
    expect(cosignKeysFrom(data, WHERE).map((k) => k.name)).toEqual(want);
  });

  it.each([
    { name: 'no .pub key', data: { 'cosign.key': b64(PEM) }, want: `${WHERE} has no public key (a data key ending .pub)` },
    { name: 'an empty Secret', data: {}, want: `${WHERE} has no public key (a data key ending .pub)` },
    {
      name: 'not PEM',
      data: { 'cosign.pub': b64('hello') },
      want: `${WHERE}: cosign.pub is not a PEM public key (cosign generate-key-pair writes cosign.pub)`,
    },
    {
      name: 'a private key under .pub (never quoted)',
      data: { 'cosign.pub': b64('-----BEGIN ENCRYPTED SIGSTORE PRIVATE KEY-----\nc2VjcmV0\n-----END ENCRYPTED SIGSTORE PRIVATE KEY-----\n') },
      want: `${WHERE}: cosign.pub is not a PEM public key (cosign generate-key-pair writes cosign.pub)`,
    },
  ] as Array<{ name: string; data: Record<string, string>; want: string }>)('refuses $name', ({ data, want }) => {
    expect(() => cosignKeysFrom(data, WHERE)).toThrow(new VerificationKeyError(want));
  });
});

describe("cosignOutcome: cosign's exit status decides, not its wording", () => {
  const run = (exitCode: number | undefined, stderr = '', timedOut = false) => cosignOutcome({ exitCode, stderr, timedOut, timeoutMs: 60_000 });
  it.each([
    { name: 'exit 0', got: run(0), want: { kind: 'verified' } },
    { name: 'exit 10: no signature', got: run(10, 'Error: no signatures found'), want: { kind: 'unsigned', detail: 'no signature found' } },
    {
      name: 'exit 12: another key',
      got: run(12, 'x\nError: no matching signatures: invalid signature\nmain.go:74: error'),
      want: { kind: 'untrusted', detail: 'no matching signatures: invalid signature' },
    },
    {
      name: 'exit 1, no matching attestations: another key (cosign v3 bundles)',
      got: run(1, 'WARNING: x\nError: no matching attestations: failed to verify signature\nerror during command execution: no matching attestations: failed'),
      want: { kind: 'untrusted', detail: 'no matching attestations: failed to verify signature' },
    },
    { name: 'exit 13: no certificate (keyless)', got: run(13, ''), want: { kind: 'untrusted', detail: 'no matching signature' } },
    { name: 'exit 11: tag or digest gone', got: run(11, 'Error: image tag not found'), want: { kind: 'unreachable', detail: 'image tag not found' } },
    {
      name: 'exit 1 with wording that looks like a verdict',
      got: run(1, 'Error: no signatures found'),
      want: { kind: 'unreachable', detail: 'no signatures found' },
    },
    { name: 'a time-out', got: run(undefined, '', true), want: { kind: 'unreachable', detail: 'cosign did not finish within 60s' } },
    { name: 'not started', got: run(undefined), want: { kind: 'unreachable', detail: 'cosign could not be started (COSIGN_BIN names it)' } },
  ])('$name', ({ got, want }) => {
    expect(got).toEqual(want);
  });

  it('bounds what it quotes of stderr', () => {
    const out = run(1, `Error: ${'x'.repeat(5000)}`);
    expect(out.kind === 'unreachable' && out.detail.length).toBeLessThanOrEqual(301);
  });
});

describe('verdictOf: no key verified', () => {
  it.each([
    { name: 'all unsigned', kinds: ['unsigned', 'unsigned'] as const, want: 'unsigned' },
    { name: 'signed by another key', kinds: ['untrusted'] as const, want: 'untrusted' },
    { name: 'one unsigned answer, one untrusted', kinds: ['unsigned', 'untrusted'] as const, want: 'untrusted' },
    { name: 'any unreachable: not a verdict', kinds: ['untrusted', 'unreachable'] as const, want: 'unreachable' },
  ])('$name → $want', ({ kinds, want }) => {
    const verdict = verdictOf(kinds.map((kind, i) => ({ label: `k${i}.pub`, outcome: { kind, detail: 'd' } })));
    expect(verdict.ok ? 'ok' : verdict.kind).toBe(want);
  });

  it('names the keys tried', () => {
    const verdict = verdictOf([{ label: 'team.pub', outcome: { kind: 'untrusted', detail: 'd' } }]);
    expect(verdict).toEqual({ ok: false, kind: 'untrusted', message: 'cosign: no signature by an accepted key or identity (tried team.pub)' });
  });
});

describe('verdictCacheKey: a verdict is kept per digest, settings and key Secret version', () => {
  const verify: ArtifactVerification = { provider: 'cosign', secretRef: { name: 'keys' } };
  const base = { repository: '127.0.0.1:5000/charts/unicorn', digest: 'sha256:aa', verify, keySecret: { namespace: 'ns', name: 'keys', resourceVersion: '1' } };
  const key = verdictCacheKey(base);
  it.each([
    { name: 'another digest', other: { ...base, digest: 'sha256:bb' } },
    { name: 'another repository', other: { ...base, repository: '127.0.0.1:5000/charts/other' } },
    { name: 'the key Secret changed', other: { ...base, keySecret: { ...base.keySecret, resourceVersion: '2' } } },
    { name: 'another key Secret', other: { ...base, keySecret: { ...base.keySecret, name: 'other' } } },
    { name: 'keyless identities', other: { ...base, verify: { provider: 'cosign' as const, matchOIDCIdentity: [{ issuer: 'i', subject: 's' }] } } },
  ])('$name is checked anew', ({ other }) => {
    expect(verdictCacheKey(other)).not.toBe(key);
  });
  it('the same artifact and settings at rest: the same key', () => {
    expect(verdictCacheKey({ ...base, verify: { ...verify } })).toBe(key);
  });
});
