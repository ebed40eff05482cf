import { describe, expect, it } from 'vitest';
import type { HelmRelease, ImageUpdate } from '../../src/api/helmrelease.js';
import { decideImageChange } from '../../src/controller/proposals/image-change.js';
import type { ImageSignature } from '../../src/controller/proposals/image-verify.js';

const release: HelmRelease = {
  apiVersion: 'helmcrew.dev/v1alpha1',
  kind: 'HelmRelease',
  metadata: { name: 'web', namespace: 'shop' },
  spec: { chart: { repository: 'https://charts.example', name: 'web' }, values: { image: { tag: '1.4.2' } } },
};
const base: ImageUpdate = { repository: 'registry.example.com/shop/web', policy: { semver: '1.x' }, valuesPath: 'image.tag' };
const verified: ImageUpdate = { ...base, verify: { provider: 'cosign', secretRef: { name: 'keys' } } };
const tags = ['1.4.2', '1.5.0'];
const signed: ImageSignature = { kind: 'signed', signedBy: 'cosign.pub' };
const refused: ImageSignature = { kind: 'refused', why: 'cosign: no signature' };
const unknown: ImageSignature = { kind: 'unknown', why: 'cosign could not check it: timeout' };

describe('imageUpdates[].verify: which tags are proposed, and what the proposal says of the signer', () => {
  it.each([
    {
      name: 'signed: proposed, naming the signer',
      update: verified,
      sig: signed,
      want: 'image registry.example.com/shop/web 1.4.2 → 1.5.0 (signed by cosign.pub)',
    },
    { name: 'unsigned: not proposed', update: verified, sig: refused, want: 'registry.example.com/shop/web:1.5.0 is not proposed: cosign: no signature' },
    {
      name: 'unsigned with allowUnsigned: proposed, marked unsigned',
      update: { ...verified, allowUnsigned: true },
      sig: refused,
      want: 'image registry.example.com/shop/web 1.4.2 → 1.5.0 (UNSIGNED: cosign: no signature)',
    },
    {
      name: 'cosign could not check: not proposed yet (even with allowUnsigned)',
      update: { ...verified, allowUnsigned: true },
      sig: unknown,
      want: 'the signature of registry.example.com/shop/web:1.5.0 could not be checked: cosign could not check it: timeout',
    },
    { name: 'not asked yet: not proposed', update: verified, sig: undefined, want: 'the signature of registry.example.com/shop/web:1.5.0 is not verified yet' },
    { name: 'no verify: proposed, nothing said', update: base, sig: undefined, want: 'image registry.example.com/shop/web 1.4.2 → 1.5.0' },
  ])('$name', ({ update, sig, want }) => {
    const change = decideImageChange('default', release, update, { tags, signatureOf: (tag) => (tag === '1.5.0' ? sig : undefined) }, 1000);
    expect(change.kind === 'propose' ? change.proposal.summary : change.why).toBe(want);
  });
});
