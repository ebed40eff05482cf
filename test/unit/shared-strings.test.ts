import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { sharedString, shareStrings } from '../../src/core/kube/watch/shared-strings.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Heap bytes kept per object by `count` parsed copies of `json`, after `prepare` ran on each. */
function bytesPerCopy(json: string, count: number, prepare: (o: unknown) => unknown): number {
  gc();
  const before = process.memoryUsage().heapUsed;
  const kept: unknown[] = [];
  for (let i = 0; i < count; i++) kept.push(prepare(JSON.parse(json)));
  gc();
  const used = process.memoryUsage().heapUsed - before;
  expect(kept).toHaveLength(count);
  return used / count;
}

describe('shareStrings', () => {
  it('keeps one copy of a repeated string value where JSON.parse made one per object', () => {
    const json = JSON.stringify({ namespace: 'team-payments-production-eu', message: 'unicorn@1.0.0 revision 1 is deployed, all good' });
    // Two ~40-character strings (~64 bytes each) per object are gone; the object itself stays. The heap
    // is measured around other work in this process (a worker reused by other files): the best of three.
    const saved = [0, 1, 2].map(() => bytesPerCopy(json, 20_000, (o) => o) - bytesPerCopy(json, 20_000, shareStrings));
    expect(Math.max(...saved)).toBeGreaterThan(80);
  });

  it.each([
    { name: 'nested objects and arrays', given: { a: { b: ['x', { c: 'y' }], n: 1, t: true, z: null } } },
    { name: 'numeric strings', given: { rv: '1317', version: '1' } },
    { name: 'a long string', given: { manifest: 'x'.repeat(10_000) } },
    { name: 'awkward keys and values', given: { k: '__proto__', e: '', c: 'constructor', u: 'ünïcödé' } },
  ])('reads the same afterwards: $name', ({ given }) => {
    const copy = structuredClone(given);
    expect(shareStrings(copy)).toBe(copy);
    expect(copy).toEqual(given);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
  });

  it('leaves frozen objects and non-objects alone', () => {
    const frozen = Object.freeze({ a: 'x' });
    expect(shareStrings(frozen)).toBe(frozen);
    expect(shareStrings('s')).toBe('s');
    expect(shareStrings(undefined)).toBeUndefined();
    expect(sharedString('__proto__')).toBe('__proto__');
  });
});
