import { describe, expect, it } from 'vitest';
import { decodeGeneration, encodeGeneration, generationChannel } from '../../src/controller/leader/generation-broadcast.js';
import { servesNamespace } from '../../src/controller/preview/preview-worker.js';

describe('issue 33: the leader tells followers of a new generation', () => {
  it('a message round-trips', () => {
    expect(decodeGeneration(encodeGeneration({ key: 'shop/unicorn', generation: 7 }))).toEqual({ key: 'shop/unicorn', generation: 7 });
    expect(generationChannel('helmcrew')).toBe('helmcrew:generations');
  });

  it('anything malformed is ignored, never thrown', () => {
    for (const message of [
      'not json',
      'null',
      '"shop/unicorn"',
      '{"key":"shop/unicorn"}',
      '{"key":"shop/unicorn","generation":"7"}',
      '{"key":"shop/unicorn","generation":0}',
      '{"key":"shop/unicorn","generation":1.5}',
      '{"key":"unicorn","generation":7}',
      '{"key":"a/b/c","generation":7}',
      '{"key":"","generation":7}',
    ])
      expect(decodeGeneration(message)).toBeUndefined();
  });
});

describe('issue 33: a preview is computed only where the namespace is served', () => {
  it('a controller of named namespaces serves those only; one of every namespace serves all', () => {
    expect(servesNamespace(['shop', 'web'], 'web')).toBe(true);
    expect(servesNamespace(['shop'], 'web')).toBe(false);
    expect(servesNamespace([], 'web')).toBe(true);
  });
});
