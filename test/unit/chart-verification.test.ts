import { describe, expect, it } from 'vitest';
import type { ArtifactVerification } from '../../src/api/verification.js';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { ANONYMOUS } from '../../src/controller/charts/chart-access.js';
import type { ArtifactVerify, Verdict, VerifyRequest } from '../../src/controller/charts/verification/cosign-verifier.js';
import type { ProvenanceChecks } from '../../src/controller/charts/verification/provenance-checks.js';
import type { ResolvedChartSource } from '../../src/controller/reconcile/desired/compose-desired.js';
import {
  verifyChart,
  VerificationFailedError,
  VerificationUnreachableError,
  type ChartVerifyPorts,
} from '../../src/controller/reconcile/desired/chart-verification.js';
import type { KubeReads } from '../../src/controller/reconcile/ports/context.js';

const DIGEST = `sha256:${'c'.repeat(64)}`;
const PEM = '-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----';
const b64 = (s: string) => Buffer.from(s).toString('base64');

const release = (repository: string, verify?: ArtifactVerification): HelmRelease => ({
  apiVersion: 'helmcrew.dev/v1alpha1',
  kind: 'HelmRelease',
  metadata: { name: 'unicorn', namespace: 'web' },
  spec: { chart: { repository, name: 'unicorn', version: '1.0.0', ...(verify ? { verify } : {}) } },
});
const ociSource = (over: Partial<ResolvedChartSource['chartSource']> = {}): ResolvedChartSource => ({
  chartName: 'unicorn',
  chartVersion: '1.0.0',
  chartDigest: DIGEST,
  chartSource: { repository: 'oci://r.example/charts', ociRef: 'oci://r.example/charts/unicorn', access: ANONYMOUS, ...over },
  secrets: [],
});
const httpSource: ResolvedChartSource = {
  chartName: 'unicorn',
  chartVersion: '1.0.0',
  chartSource: { repository: 'https://charts.example', archiveUrl: 'https://charts.example/unicorn-1.0.0.tgz', access: ANONYMOUS },
  secrets: [],
};
const kube = {
  core: { readNamespacedSecret: async () => ({ metadata: { uid: 'u1', resourceVersion: '7' }, data: { 'cosign.pub': b64(PEM) } }) },
} as unknown as KubeReads;
const trustKube = {
  core: {
    readNamespacedSecret: async () => ({
      metadata: { uid: 'u1', resourceVersion: '9' },
      data: { 'trustpolicy.json': b64('{"version":"1.0"}'), 'ca.crt': b64('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n') },
    }),
  },
} as unknown as KubeReads;
const cosign = (verdict: Verdict): ArtifactVerify & { asked: number } => {
  const port = { asked: 0, verify: async () => (port.asked++, verdict) };
  return port;
};
const provenance = (result: Awaited<ReturnType<ProvenanceChecks['verify']>>): Pick<ProvenanceChecks, 'verify'> => ({ verify: async () => result });
const COSIGN: ArtifactVerification = { provider: 'cosign', secretRef: { name: 'keys' } };
const PGP: ArtifactVerification = { provider: 'pgp', secretRef: { name: 'keys' } };
const NOTATION: ArtifactVerification = { provider: 'notation', secretRef: { name: 'keys' } };

describe('verifyChart: one entry point for spec.chart.verify, by provider', () => {
  it('no verify: the source as it is, nothing asked', async () => {
    const port = cosign({ ok: true, signedBy: 'cosign.pub' });
    expect(await verifyChart({ kube, cosign: port }, release('oci://r.example/charts'), ociSource())).toEqual(ociSource());
    expect(port.asked).toBe(0);
  });

  it('cosign passes: the verification record names the chart, the signer and the digest', async () => {
    const verified = await verifyChart({ kube, cosign: cosign({ ok: true, signedBy: 'cosign.pub' }) }, release('oci://r.example/charts', COSIGN), ociSource());
    expect(verified.verification).toEqual({ artifact: 'unicorn@1.0.0', verifiedBy: 'cosign.pub', provider: 'cosign', digest: DIGEST });
  });

  it('notation passes: the record names the signing certificate and the digest, and the trust material went to the verifier', async () => {
    const asked: VerifyRequest[] = [];
    const notation: ArtifactVerify = { verify: async (r) => (asked.push(r), { ok: true, signedBy: 'CN=signer,O=Example' }) };
    const verified = await verifyChart({ kube: trustKube, notation }, release('oci://r.example/charts', NOTATION), ociSource());
    expect(verified.verification).toEqual({ artifact: 'unicorn@1.0.0', verifiedBy: 'CN=signer,O=Example', provider: 'notation', digest: DIGEST });
    expect(asked[0]).toMatchObject({ repository: 'r.example/charts/unicorn', digest: DIGEST, keySecret: { resourceVersion: '9' } });
    expect(asked[0]!.trust).toMatchObject({ trustPolicy: '{"version":"1.0"}', certificates: [{ name: 'ca.crt' }] });
  });

  it('pgp passes: the verified archive is what helm installs, and the record has no digest', async () => {
    const ports = { kube, provenance: provenance({ ok: true, archive: '/work/v/unicorn-1.0.0.tgz', signedBy: 'Signer (key 8C0B)' }) };
    const verified = await verifyChart(ports, release('https://charts.example', PGP), httpSource);
    expect(verified.chartSource.verifiedArchive).toBe('/work/v/unicorn-1.0.0.tgz');
    expect(verified.verification).toEqual({ artifact: 'unicorn@1.0.0', verifiedBy: 'Signer (key 8C0B)', provider: 'pgp' });
  });

  const ref = `chart r.example/charts/unicorn@${DIGEST}`;
  const keys = 'Secret web/keys (spec.chart.verify.secretRef)';
  it.each<{ name: string; ports: Omit<ChartVerifyPorts, 'kube'> & { kube?: KubeReads }; r: HelmRelease; source: ResolvedChartSource; why: string }>([
    {
      name: 'cosign: unsigned',
      ports: { cosign: cosign({ ok: false, kind: 'unsigned', message: 'cosign: no signature' }) },
      r: release('oci://r.example/charts', COSIGN),
      source: ociSource(),
      why: `${ref} failed verification: it is not signed (cosign: no signature)`,
    },
    {
      name: 'cosign: another key',
      ports: { cosign: cosign({ ok: false, kind: 'untrusted', message: 'cosign: no signature by an accepted key or identity (tried cosign.pub)' }) },
      r: release('oci://r.example/charts', COSIGN),
      source: ociSource(),
      why: `${ref} failed verification: it is signed by a key that is not among the keys of ${keys} (cosign: no signature by an accepted key or identity (tried cosign.pub))`,
    },
    {
      name: 'cosign not available',
      ports: {},
      r: release('oci://r.example/charts', COSIGN),
      source: ociSource(),
      why: `${ref} failed verification: it cannot be checked this way (cosign is not available in this controller (COSIGN_BIN))`,
    },
    {
      name: 'notation not available (a cosign verifier does not stand in for it)',
      ports: { cosign: cosign({ ok: true, signedBy: 'x' }) },
      r: release('oci://r.example/charts', NOTATION),
      source: ociSource(),
      why: `${ref} failed verification: it cannot be checked this way (notation is not available in this controller (NOTATION_VERIFY_BIN))`,
    },
    {
      name: 'notation: unsigned',
      ports: { kube: trustKube, notation: cosign({ ok: false, kind: 'unsigned', message: 'notation: no signature' }) },
      r: release('oci://r.example/charts', NOTATION),
      source: ociSource(),
      why: `${ref} failed verification: it is not signed (notation: no signature)`,
    },
    {
      name: 'notation: a trust policy it refuses',
      ports: { kube: trustKube, notation: cosign({ ok: false, kind: 'key-secret', message: 'notation: trust policy: bad version' }) },
      r: release('oci://r.example/charts', NOTATION),
      source: ociSource(),
      why: `${ref} failed verification: the keys in ${keys} cannot be used (notation: trust policy: bad version)`,
    },
    {
      name: 'notation: a Secret of cosign keys, no trust policy',
      ports: { notation: cosign({ ok: true, signedBy: 'x' }) },
      r: release('oci://r.example/charts', NOTATION),
      source: ociSource(),
      why: `${ref} failed verification: the keys in ${keys} cannot be used (${keys} has no trustpolicy.json (the notation trust policy))`,
    },
    {
      name: 'cosign through a proxySecretRef: refused, never bypassed',
      ports: { cosign: cosign({ ok: true, signedBy: 'cosign.pub' }) },
      r: release('oci://r.example/charts', COSIGN),
      source: ociSource({ access: { ...ANONYMOUS, proxy: { secret: 'web/proxy', url: new URL('http://proxy.example:3128') } } }),
      why: `${ref} failed verification: it cannot be checked this way (cosign does not go through spec.chart.proxySecretRef)`,
    },
    {
      name: 'pgp: another key',
      ports: { provenance: provenance({ ok: false, check: 'unknown-key' }) },
      r: release('https://charts.example', PGP),
      source: httpSource,
      why: `chart unicorn@1.0.0 failed verification: it is signed by a key that is not among the keys of ${keys}`,
    },
  ])('$name: VerificationFailed, saying why', async ({ ports, r, source, why }) => {
    await expect(verifyChart({ kube, ...ports }, r, source)).rejects.toThrow(
      new VerificationFailedError(`HelmRelease web/unicorn: ${why}; nothing of it is rendered or installed`),
    );
  });

  it('cosign could not reach the registry: not a verdict (retried like a failed pull)', async () => {
    const ports = { kube, cosign: cosign({ ok: false, kind: 'unreachable', message: 'cosign could not check it: timed out' }) };
    await expect(verifyChart(ports, release('oci://r.example/charts', COSIGN), ociSource())).rejects.toBeInstanceOf(VerificationUnreachableError);
  });
});
