import { describe, expect, it } from 'vitest';
import type { ArtifactVerification } from '../../src/api/verification.js';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { chartSignatureNote } from '../../src/core/release/chart-signature.js';
import { renderStatus } from '../../src/session/render/text.js';

const release = (verify: ArtifactVerification | undefined, status?: HelmRelease['status']): HelmRelease => ({
  apiVersion: 'helmcrew.dev/v1alpha1',
  kind: 'HelmRelease',
  metadata: { name: 'web', namespace: 'shop' },
  spec: {
    chart: {
      repository: verify?.provider === 'pgp' ? 'https://charts.example' : 'oci://registry.example/charts',
      name: 'web',
      version: '1.0.0',
      ...(verify ? { verify } : {}),
    },
  },
  ...(status ? { status } : {}),
});
const gitRelease = (status?: HelmRelease['status']): HelmRelease => ({
  apiVersion: 'helmcrew.dev/v1alpha1',
  kind: 'HelmRelease',
  metadata: { name: 'web', namespace: 'shop' },
  spec: { chart: { name: 'web', git: { url: 'https://git.example/charts.git', verify: { secretRef: { name: 'git-keys' } } } } },
  ...(status ? { status } : {}),
});
const COSIGN: ArtifactVerification = { provider: 'cosign', secretRef: { name: 'keys' } };
const PGP: ArtifactVerification = { provider: 'pgp', secretRef: { name: 'keys' } };
const DIGEST = `sha256:${'a'.repeat(64)}`;
const AT = '2026-11-28T19:00:00Z';
const cosignRecord = { verification: { artifact: 'web@1.0.0', verifiedBy: 'cosign.pub', provider: 'cosign', digest: DIGEST, at: AT } };

describe('"signed by": what status and plans say of status.verification, for every provider', () => {
  it.each([
    { name: 'no verify: nothing', r: release(undefined), want: undefined },
    { name: 'verify, nothing verified yet', r: release(COSIGN), want: 'chart signature required (cosign): none verified yet' },
    { name: 'cosign verified', r: release(COSIGN, cosignRecord), want: 'chart web@1.0.0 signed by cosign.pub (cosign, sha256:aaaaaaaaaaaa…)' },
    {
      name: 'pgp verified',
      r: release(PGP, { verification: { artifact: 'web@1.0.0', verifiedBy: 'Chart Signer <s@x> (key 8C0BE10A6AEA50AB)', provider: 'pgp', at: AT } }),
      want: 'chart web@1.0.0 signed by Chart Signer <s@x> (key 8C0BE10A6AEA50AB) (pgp)',
    },
    {
      name: 'git verified',
      r: gitRelease({
        verification: { artifact: `https://git.example/charts.git@${'b'.repeat(40)}`, verifiedBy: 'ci-bot (ED25519 SHA256:x)', provider: 'git', at: AT },
      }),
      want: `commit https://git.example/charts.git@${'b'.repeat(40)} signed by ci-bot (ED25519 SHA256:x) (git)`,
    },
    { name: 'git verify, nothing verified yet', r: gitRelease(), want: 'commit signature required (git): none verified yet' },
    { name: 'a record of another provider (the spec changed)', r: release(PGP, cosignRecord), want: 'chart signature required (pgp): none verified yet' },
  ])('$name', ({ r, want }) => {
    expect(chartSignatureNote(r)).toBe(want);
  });

  it('/release status shows the signer', () => {
    const r = release(COSIGN, { verification: { ...cosignRecord.verification, verifiedBy: 'team.pub' } });
    expect(renderStatus(r).split('\n')).toContain('chart web@1.0.0 signed by team.pub (cosign, sha256:aaaaaaaaaaaa…)');
  });
});
