import { describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { decideImageChange } from '../../src/controller/proposals/image-change.js';
import { imageRef } from '../../src/controller/proposals/image-watcher.js';

const release = (over: Partial<HelmRelease['spec']> = {}, status?: HelmRelease['status']): HelmRelease => ({
  apiVersion: 'helmcrew.dev/v1alpha1',
  kind: 'HelmRelease',
  metadata: { name: 'web', namespace: 'shop' },
  spec: { chart: { repository: 'https://charts.example', name: 'web' }, values: { image: { tag: '1.4.2' } }, ...over },
  ...(status ? { status } : {}),
});
const update = { repository: 'registry.example.com/shop/web', policy: { semver: '1.x' }, valuesPath: 'image.tag' };
const tags = ['1.4.2', '1.5.0', '2.0.0', 'latest'];

describe('decideImageChange', () => {
  it('without spec.approval: a newer tag is a proposal approved as it opens', () => {
    const change = decideImageChange('default', release(), update, { tags }, 1000);
    expect(change.kind).toBe('propose');
    if (change.kind !== 'propose') return;
    expect(change.proposal.values).toEqual([{ valuesPath: 'image.tag', from: '1.4.2', to: '1.5.0' }]);
    expect(change.proposal.state).toEqual({ phase: 'approved', approvers: [] });
    expect(change.proposal.summary).toBe('image registry.example.com/shop/web 1.4.2 → 1.5.0');
    expect(change.proposal.subject).toBe('default/shop/web image registry.example.com/shop/web');
  });

  it('with spec.approval: an open proposal expiring after expireAfter; the same change keeps its id', () => {
    const r = release({ approval: { required: 2, expireAfter: '1h' } });
    const a = decideImageChange('default', r, update, { tags }, 1000);
    const b = decideImageChange('default', r, update, { tags: [...tags].reverse() }, 5000);
    if (a.kind !== 'propose' || b.kind !== 'propose') throw new Error('expected proposals');
    expect(a.proposal.state).toEqual({ phase: 'open', approvers: [] });
    expect(a.proposal.facts).toEqual({ required: 2, expiresAt: 1000 + 3600_000 });
    expect(b.proposal.id).toBe(a.proposal.id);
  });

  it('spec.approval.teams travels in the proposal, where the bot reads who may vote', () => {
    const change = decideImageChange('default', release({ approval: { required: 1, teams: ['web'] } }), update, { tags }, 0);
    if (change.kind !== 'propose') throw new Error('expected a proposal');
    expect(change.proposal.facts.teams).toEqual(['web']);
  });

  it('nothing when the wanted tag is in effect (an approved override counts)', () => {
    expect(decideImageChange('default', release({ values: { image: { tag: '1.5.0' } } }), update, { tags }, 0).kind).toBe('none');
    const overridden = release({}, { approvedOverrides: [{ valuesPath: 'image.tag', value: '1.5.0', at: 'T' }] });
    expect(decideImageChange('default', overridden, update, { tags }, 0)).toEqual({ kind: 'none', why: 'registry.example.com/shop/web:1.5.0 is in effect' });
  });

  it('a tag moved to a new digest is a change, with digestPath', () => {
    const withDigest = { ...update, digestPath: 'image.digest' };
    const r = release({ values: { image: { tag: '1.5.0', digest: 'sha256:old' } } });
    const change = decideImageChange('default', r, withDigest, { tags, digestOf: () => 'sha256:new' }, 0);
    if (change.kind !== 'propose') throw new Error('expected a proposal');
    expect(change.proposal.values).toEqual([{ valuesPath: 'image.digest', from: 'sha256:old', to: 'sha256:new' }]);
    expect(decideImageChange('default', r, withDigest, { tags, digestOf: () => 'sha256:old' }, 0).kind).toBe('none');
  });

  it('no tag in range: nothing, saying why', () => {
    expect(decideImageChange('default', release(), { ...update, policy: { semver: '3.x' } }, { tags }, 0)).toEqual({
      kind: 'none',
      why: 'no tag in range 3.x among 4 tags (3 are versions)',
    });
  });
});

describe('imageRef', () => {
  it('splits host and path', () => {
    expect(imageRef('127.0.0.1:5000/shop/web', true)).toEqual({
      host: '127.0.0.1:5000',
      base: 'http://127.0.0.1:5000',
      name: 'shop/web',
      ref: 'oci://127.0.0.1:5000/shop/web',
    });
  });
});
