import { describe, expect, it } from 'vitest';
import { renderObjectDiff, renderPlan } from '../../../src/session/render/text.js';
import { readableDiff } from '../../../src/core/release/readable-diff.js';
import { summarizeReadableDiff } from '../../../src/core/release/readable-diff-text.js';

const page = (color: string, n: number) =>
  Array.from(
    { length: n },
    (_, i) =>
      `---\n${JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `page-${i}` }, data: { a: color, b: color, c: color, d: color } })}\n`,
  ).join('');

describe('the terminal’s plan and diff', () => {
  it('bullets a plan’s lines and indents an object’s changed fields under it', () => {
    const text = renderPlan({
      title: 'upgrade web/unicorn to 2.0.0',
      lines: ['objects: 1 changed', '~ ConfigMap page-0', '  data.a: pink → blue'],
      warnings: [],
      doable: true,
    });
    expect(text).toBe(['upgrade web/unicorn to 2.0.0', '  • objects: 1 changed', '  • ~ ConfigMap page-0', '      data.a: pink → blue'].join('\n'));
  });

  it('`diff` shows every object once, in full, from the structured diff', () => {
    const diff = readableDiff(page('pink', 7), page('blue', 7));
    const text = renderObjectDiff({ ok: true, from: 'revision 1', to: 'unicorn 2.0.0', ...summarizeReadableDiff(diff), diff });
    expect(text.match(/~ ConfigMap page-\d/g)).toHaveLength(7);
    expect(text.match(/data\.d: pink → blue/g)).toHaveLength(7);
    expect(text).not.toContain('(in full)');
  });
});
