import { describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { chartSignatureNote } from '../../src/core/release/chart-signature.js';
import { renderStatus } from '../../src/session/render/text.js';

const release = (verify: boolean, status?: HelmRelease['status']): HelmRelease => ({
  apiVersion: 'helmcrew.dev/v1alpha1',
  kind: 'HelmRelease',
  metadata: { name: 'web', namespace: 'shop' },
  spec: {
    chart: {
      repository: 'oci://registry.example/charts',
      name: 'web',
      version: '1.0.0',
      ...(verify ? { verify: { provider: 'cosign', secretRef: { name: 'keys' } } } : {}),
    },
  },
  ...(status ? { status } : {}),
});
const DIGEST = `sha256:${'a'.repeat(64)}`;

describe('"signed by": what status and plans say of spec.chart.verify', () => {
  it.each([
    { name: 'no verify: nothing', r: release(false), want: undefined },
    { name: 'verify, nothing verified yet', r: release(true), want: 'chart signature required (cosign): none verified yet' },
    {
      name: 'verified',
      r: release(true, { lastAttemptedChartVerification: { provider: 'cosign', digest: DIGEST, signedBy: 'cosign.pub' } }),
      want: 'chart signed by cosign.pub (cosign, sha256:aaaaaaaaaaaa…)',
    },
  ])('$name', ({ r, want }) => {
    expect(chartSignatureNote(r)).toBe(want);
  });

  it('/release status shows the signer', () => {
    const r = release(true, { lastAttemptedChartVerification: { provider: 'cosign', digest: DIGEST, signedBy: 'team.pub' } });
    expect(renderStatus(r).split('\n')).toContain('chart signed by team.pub (cosign, sha256:aaaaaaaaaaaa…)');
  });
});
