import { describe, expect, it } from 'vitest';
import type { ArtifactVerification } from '../../src/api/verification.js';
import { ANONYMOUS } from '../../src/controller/charts/chart-access.js';
import { VerificationKeyError } from '../../src/controller/charts/verification/cosign-keys.js';
import type { Verdict, VerifyRequest } from '../../src/controller/charts/verification/cosign-verifier.js';
import { notationOutcome } from '../../src/controller/charts/verification/notation-outcome.js';
import { notationTrustFrom } from '../../src/controller/charts/verification/notation-trust.js';
import { VerdictCache } from '../../src/controller/charts/verification/verdict-cache.js';

const CERT = '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIIGHc+/=\n-----END CERTIFICATE-----\n';
const POLICY = '{"version":"1.0","trustPolicies":[]}';
const b64 = (s: string) => Buffer.from(s).toString('base64');
const WHERE = 'Secret ns/trust (spec.chart.verify.secretRef)';

describe('notationTrustFrom: the trust policy and certificates of a Secret, as Flux reads one', () => {
  it('trustpolicy.json and every .crt and .pem, sorted; other keys ignored', () => {
    const trust = notationTrustFrom({ 'trustpolicy.json': b64(POLICY), 'z.pem': b64(CERT), 'a.crt': b64(CERT), 'notes.txt': b64('x') }, WHERE);
    expect(trust).toEqual({
      trustPolicy: POLICY,
      certificates: [
        { name: 'a.crt', pem: CERT },
        { name: 'z.pem', pem: CERT },
      ],
    });
  });

  it.each([
    { name: 'no trust policy', data: { 'ca.crt': b64(CERT) }, want: `${WHERE} has no trustpolicy.json (the notation trust policy)` },
    {
      name: 'a trust policy that is not JSON',
      data: { 'trustpolicy.json': b64('{"version":'), 'ca.crt': b64(CERT) },
      want: `${WHERE}: trustpolicy.json is not JSON`,
    },
    {
      name: 'a JSON array for a policy',
      data: { 'trustpolicy.json': b64('[]'), 'ca.crt': b64(CERT) },
      want: `${WHERE}: trustpolicy.json is not a trust policy document`,
    },
    { name: 'no certificate', data: { 'trustpolicy.json': b64(POLICY) }, want: `${WHERE} has no certificate (a data key ending .crt or .pem)` },
    {
      name: 'a private key under .pem (never quoted)',
      data: { 'trustpolicy.json': b64(POLICY), 'key.pem': b64('-----BEGIN PRIVATE KEY-----\nc2VjcmV0\n-----END PRIVATE KEY-----\n') },
      want: `${WHERE}: key.pem is not a PEM certificate`,
    },
  ] as Array<{ name: string; data: Record<string, string>; want: string }>)('refuses $name', ({ data, want }) => {
    expect(() => notationTrustFrom(data, WHERE)).toThrow(new VerificationKeyError(want));
  });
});

describe("notationOutcome: notation-verify's exit status decides, not its wording", () => {
  const run = (exitCode: number | undefined, stdout = '', stderr = '', timedOut = false) =>
    notationOutcome({ exitCode, stdout, stderr, timedOut, timeoutMs: 60_000 });
  it.each<{ name: string; got: Verdict; want: Verdict }>([
    {
      name: 'exit 0: the signer',
      got: run(0, '{"signedBy":"CN=signer,O=Example","digest":"sha256:x"}\n'),
      want: { ok: true, signedBy: 'CN=signer,O=Example' },
    },
    {
      name: 'exit 0 naming no signer: not a pass',
      got: run(0, 'ok'),
      want: { ok: false, kind: 'untrusted', message: 'notation: it named no signing certificate' },
    },
    {
      name: 'exit 10: no signature',
      got: run(10, '', 'Error: no notation signature is associated with r/x@sha256:1'),
      want: { ok: false, kind: 'unsigned', message: 'notation: no signature' },
    },
    {
      name: 'exit 12: none trusted',
      got: run(12, '', 'Error: no signature verifies: the certificate chain does not contain any trusted certificate'),
      want: { ok: false, kind: 'untrusted', message: 'notation: no signature verifies: the certificate chain does not contain any trusted certificate' },
    },
    {
      name: 'exit 3: the trust policy',
      got: run(3, '', 'Error: trust policy: bad version'),
      want: { ok: false, kind: 'key-secret', message: 'notation: trust policy: bad version' },
    },
    {
      name: 'exit 11: the registry',
      got: run(11, '', 'Error: r/x@sha256:1: connection refused'),
      want: { ok: false, kind: 'unreachable', message: 'notation could not check it: r/x@sha256:1: connection refused' },
    },
    {
      name: 'a time-out',
      got: run(undefined, '', '', true),
      want: { ok: false, kind: 'unreachable', message: 'notation could not check it: it did not finish within 60s' },
    },
    {
      name: 'not started',
      got: run(undefined),
      want: { ok: false, kind: 'unreachable', message: 'notation could not check it: notation-verify could not be started (NOTATION_VERIFY_BIN names it)' },
    },
  ])('$name', ({ got, want }) => {
    expect(got).toEqual(want);
  });
});

describe('VerdictCache: one check per digest, settings and key Secret version (cosign and notation alike)', () => {
  const NOTATION: ArtifactVerification = { provider: 'notation', secretRef: { name: 'trust' } };
  const request = (over: Partial<VerifyRequest> = {}): VerifyRequest => ({
    repository: 'r.example/charts/unicorn',
    digest: `sha256:${'a'.repeat(64)}`,
    verify: NOTATION,
    keys: [],
    keySecret: { namespace: 'web', name: 'trust', resourceVersion: '1' },
    access: ANONYMOUS,
    refusalTtlMs: 60_000,
    ...over,
  });
  const counted = (verdict: Verdict) => {
    const tool = { runs: 0, run: async () => (tool.runs++, verdict) };
    return tool;
  };

  it('a pass is kept for good; a new digest, key Secret version or provider is checked again', async () => {
    const cache = new VerdictCache(() => 0);
    const tool = counted({ ok: true, signedBy: 'CN=signer' });
    for (let i = 0; i < 5; i++) await cache.verdictOf(request(), tool.run);
    expect(tool.runs).toBe(1);
    await cache.verdictOf(request({ digest: `sha256:${'b'.repeat(64)}` }), tool.run);
    await cache.verdictOf(request({ keySecret: { namespace: 'web', name: 'trust', resourceVersion: '2' } }), tool.run);
    await cache.verdictOf(request({ verify: { provider: 'cosign', secretRef: { name: 'trust' } } }), tool.run);
    expect(tool.runs).toBe(4);
  });

  it('a refusal holds for the release interval, then is asked again; unreachable is never kept', async () => {
    let now = 0;
    const cache = new VerdictCache(() => now);
    const refused = counted({ ok: false, kind: 'unsigned', message: 'notation: no signature' });
    await cache.verdictOf(request(), refused.run);
    now = 59_999;
    await cache.verdictOf(request(), refused.run);
    expect(refused.runs).toBe(1);
    now = 60_000;
    await cache.verdictOf(request(), refused.run);
    expect(refused.runs).toBe(2);
    const down = counted({ ok: false, kind: 'unreachable', message: 'notation could not check it' });
    await cache.verdictOf(request({ digest: `sha256:${'c'.repeat(64)}` }), down.run);
    await cache.verdictOf(request({ digest: `sha256:${'c'.repeat(64)}` }), down.run);
    expect(down.runs).toBe(2);
  });

  it('releases asking for one artifact at once share one run (N releases of a chart at start-up)', async () => {
    const cache = new VerdictCache(() => 0);
    let runs = 0;
    let finish: (v: Verdict) => void = () => undefined;
    const run = () => (runs++, new Promise<Verdict>((resolve) => (finish = resolve)));
    const asked = Array.from({ length: 10 }, () => cache.verdictOf(request(), run));
    finish({ ok: true, signedBy: 'CN=signer' });
    expect(await Promise.all(asked)).toEqual(Array.from({ length: 10 }, () => ({ ok: true, signedBy: 'CN=signer' })));
    expect(runs).toBe(1);
  });
});
