import { describe, expect, it } from 'vitest';
import { chooseEncoding, compressible } from '../../../src/web/server/compression.js';

describe('chooseEncoding', () => {
  it.each([
    [undefined, undefined],
    ['', undefined],
    ['gzip, deflate, br, zstd', 'gzip'],
    ['gzip, deflate', 'gzip'],
    ['br', undefined],
    ['br, gzip;q=0', undefined],
    ['identity', undefined],
    ['*', 'gzip'],
    ['*;q=0.5, br;q=0', 'gzip'],
    ['*;q=0, br', undefined],
    ['GZIP;Q=0.8', 'gzip'],
  ] as const)('%s → %s', (header, want) => expect(chooseEncoding(header)).toBe(want));
});

describe('compressible', () => {
  it.each([
    ['text/html; charset=utf-8', 200_000, false, true],
    ['text/css; charset=utf-8', 3_000, false, true],
    ['application/javascript', 2_000, false, true],
    ['text/html; charset=utf-8', 500, false, false],
    ['text/event-stream', 200_000, false, false],
    ['image/png', 200_000, false, false],
    [undefined, 200_000, false, false],
    ['text/html', 200_000, true, false],
  ] as const)('%s, %d bytes, encoded %s → %s', (type, bytes, encoded, want) => expect(compressible(type, bytes, encoded)).toBe(want));
});
