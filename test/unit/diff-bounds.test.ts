import { describe, expect, it } from 'vitest';
import { PAGED_DIFF_BOUNDS, withinBounds } from '../../src/core/release/diff-bounds.js';
import { DIFF_BOUNDS, pageOf, readableDiff } from '../../src/core/release/readable-diff.js';

/** A manifest of `n` ConfigMaps, each with `fields` keys valued `value`. */
function manifest(n: number, fields: number, value: string): string {
  return Array.from({ length: n }, (_, i) =>
    [
      'apiVersion: v1',
      'kind: ConfigMap',
      `metadata: { name: cm-${String(i).padStart(4, '0')}, namespace: shop }`,
      'data:',
      ...Array.from({ length: fields }, (_, f) => `  k${f}: "${value}"`),
    ].join('\n'),
  ).join('\n---\n');
}

describe('withinBounds: one diff, two bounds', () => {
  it.each([
    { name: 'many objects, few fields', n: 300, fields: 1 },
    { name: 'few objects, many fields', n: 12, fields: 30 },
    { name: 'both', n: 150, fields: 5 },
    { name: 'within every bound', n: 3, fields: 2 },
  ])('$name: the paged diff cut to chat’s bounds is the diff chat would get', ({ n, fields }) => {
    const before = manifest(n, fields, 'pink');
    const after = manifest(n, fields, 'blue');
    const paged = readableDiff(before, after, { limits: PAGED_DIFF_BOUNDS });
    expect(withinBounds(paged, DIFF_BOUNDS)).toEqual(readableDiff(before, after, { limits: DIFF_BOUNDS }));
  });

  it('added and removed objects are cut by count alone', () => {
    const paged = readableDiff(manifest(0, 0, ''), manifest(250, 1, 'x'), { limits: PAGED_DIFF_BOUNDS });
    expect(paged.objects).toHaveLength(250);
    const chat = withinBounds(paged, DIFF_BOUNDS);
    expect([chat.objects.length, chat.omittedObjects, chat.counts.added]).toEqual([100, 150, 250]);
  });

  it('pages of the paged diff: 300 objects, 50 a page', () => {
    const paged = readableDiff(manifest(300, 1, 'pink'), manifest(300, 1, 'blue'), { limits: PAGED_DIFF_BOUNDS });
    const third = pageOf(paged, 3, 50);
    expect([third.page, third.pages, third.total, third.objects[0]!.name]).toEqual([3, 6, 300, 'cm-0100']);
    expect(pageOf(paged, 99, 50).page).toBe(6);
  });
});
