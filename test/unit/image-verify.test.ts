import { describe, expect, it } from 'vitest';
import type { HelmRelease, ImageUpdate } from '../../src/api/helmrelease.js';
import type { ArtifactVerification } from '../../src/api/verification.js';
import { ANONYMOUS } from '../../src/controller/charts/chart-access.js';
import type { ArtifactVerify, VerifyRequest } from '../../src/controller/charts/verification/cosign-verifier.js';
import { imageSignatureChecker } from '../../src/controller/proposals/image-verify.js';
import type { KubeReads } from '../../src/controller/reconcile/ports/context.js';
import type { IdentityClients } from '../../src/core/kube/identity.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const CERT = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const PEM = '-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----\n';
const DIGEST = `sha256:${'d'.repeat(64)}`;
// The key Secret's reads (as the release's identity: identities.forUser gives them).
const kube = {
  core: {
    readNamespacedSecret: async ({ name }: { name: string }) => ({
      metadata: { resourceVersion: '3' },
      data: name === 'trust' ? { 'trustpolicy.json': b64('{"version":"1.0"}'), 'ca.crt': b64(CERT) } : { 'cosign.pub': b64(PEM) },
    }),
  },
} as unknown as KubeReads;
const release: HelmRelease = {
  apiVersion: 'helmcrew.dev/v1alpha1',
  kind: 'HelmRelease',
  metadata: { name: 'web', namespace: 'shop' },
  spec: { chart: { repository: 'https://charts.example', name: 'web' } },
};
const update = (verify: ArtifactVerification): ImageUpdate => ({
  repository: 'r.example/shop/web',
  policy: { semver: '1.x' },
  valuesPath: 'image.tag',
  verify,
});
const port = (signedBy: string) => {
  const asked: VerifyRequest[] = [];
  const verifier: ArtifactVerify = { verify: async (r) => (asked.push(r), { ok: true, signedBy }) };
  return { asked, verifier };
};
const deps = { kube, identities: { forUser: () => kube } as unknown as IdentityClients, tenancy: { allowCrossNamespaceTargets: false } };

describe('imageUpdates[].verify: the verifier of the provider asked for', () => {
  it('notation: the notation verifier, with the Secret trust policy and certificates; cosign is not asked', async () => {
    const cosign = port('cosign.pub');
    const notation = port('CN=image-signer');
    const check = imageSignatureChecker({ ...deps, cosign: cosign.verifier, notation: notation.verifier });
    expect(await check(release, update({ provider: 'notation', secretRef: { name: 'trust' } }), ANONYMOUS, DIGEST)).toEqual({
      kind: 'signed',
      signedBy: 'CN=image-signer',
    });
    expect(cosign.asked).toEqual([]);
    expect(notation.asked[0]).toMatchObject({ repository: 'r.example/shop/web', digest: DIGEST, trust: { certificates: [{ name: 'ca.crt' }] } });
  });

  it('cosign: the cosign verifier, with the Secret keys', async () => {
    const cosign = port('cosign.pub');
    const notation = port('CN=image-signer');
    const check = imageSignatureChecker({ ...deps, cosign: cosign.verifier, notation: notation.verifier });
    expect(await check(release, update({ provider: 'cosign', secretRef: { name: 'keys' } }), ANONYMOUS, DIGEST)).toEqual({
      kind: 'signed',
      signedBy: 'cosign.pub',
    });
    expect(notation.asked).toEqual([]);
  });

  it('notation without its verifier: refused (never proposed as signed by another tool)', async () => {
    const check = imageSignatureChecker({ ...deps, cosign: port('cosign.pub').verifier });
    expect(await check(release, update({ provider: 'notation', secretRef: { name: 'trust' } }), ANONYMOUS, DIGEST)).toEqual({
      kind: 'refused',
      why: 'notation is not available in this controller (NOTATION_VERIFY_BIN)',
    });
  });
});
