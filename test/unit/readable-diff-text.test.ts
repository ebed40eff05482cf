import { describe, expect, it } from 'vitest';
import { readableDiff } from '../../src/core/release/readable-diff.js';
import { readableDiffText, summarizeReadableDiff } from '../../src/core/release/readable-diff-text.js';

const configMap = (name: string, data: Record<string, string>) =>
  `---\n${JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'web' }, data })}\n`;
const secret = (password: string) => `---\n${JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'creds' }, stringData: { password } })}\n`;
const page = (color: string) =>
  ['<html>', `<title>The ${color} unicorn</title>`, `<h1 style="color:${color}">A unicorn</h1>`, `<p>${color} all the way</p>`, '</html>'].join('\n');

describe('summarizeReadableDiff', () => {
  it('shows each object on a line and its changes under it: path, before → after', () => {
    const summary = summarizeReadableDiff(
      readableDiff(
        configMap('unicorn-page', { color: 'pink' }) + secret('hunter2-old'),
        configMap('unicorn-page', { color: 'blue' }) + secret('hunter2-new') + configMap('extra', {}),
      ),
    );
    expect(summary).toEqual({
      lines: [
        'objects: 1 added, 2 changed',
        '+ ConfigMap web/extra',
        '~ ConfigMap web/unicorn-page',
        '  data.color: pink → blue',
        '~ Secret creds: contents changed (not shown)',
      ],
      rest: [],
    });
    expect(JSON.stringify(summary)).not.toContain('hunter2');
  });

  it('shows a multi-line value line by line, each line as its changed part, the rest in the thread', () => {
    const summary = summarizeReadableDiff(
      readableDiff(configMap('unicorn-page', { 'index.html': page('pink') }), configMap('unicorn-page', { 'index.html': page('blue') })),
    );
    expect(summary.lines).toEqual([
      'objects: 1 changed',
      '~ ConfigMap web/unicorn-page',
      '  data["index.html"] (5 lines → 5 lines):',
      '    line 2: <title>The pink unicorn</title> → <title>The blue unicorn</title>',
      '    line 3: <h1 style="color:pink">A unicorn</h1> → <h1 style="color:blue">A unicorn</h1>',
      '    … and 1 more changed line',
    ]);
    expect(summary.rest).toEqual([
      '~ ConfigMap web/unicorn-page (in full)',
      '  data["index.html"] (5 lines → 5 lines):',
      '    line 2: <title>The pink unicorn</title> → <title>The blue unicorn</title>',
      '    line 3: <h1 style="color:pink">A unicorn</h1> → <h1 style="color:blue">A unicorn</h1>',
      '    line 4: <p>pink all the way</p> → <p>blue all the way</p>',
    ]);
  });

  it('shows lines added and removed with - and +', () => {
    const summary = summarizeReadableDiff(readableDiff(configMap('c', { f: 'a\nb\nc' }), configMap('c', { f: 'a\nx\ny\nc' })), {
      objects: 5,
      changes: 3,
      hunkLines: 9,
    });
    expect(summary.lines.slice(2)).toEqual(['  data.f (3 lines → 4 lines):', '    line 2:', '      - b', '      + x', '      + y']);
  });

  it('keeps chat short: the first objects and changes, the rest in full apart', () => {
    const many = (n: number, value: string) => Array.from({ length: n }, (_, i) => configMap(`cm-${i}`, { a: value, b: value, c: value, d: value })).join('');
    const summary = summarizeReadableDiff(readableDiff(many(8, '1'), many(8, '2')), { objects: 5, changes: 3, hunkLines: 2 });
    expect(summary.lines[0]).toBe('objects: 8 changed');
    expect(summary.lines.slice(1, 6)).toEqual(['~ ConfigMap web/cm-0', '  data.a: 1 → 2', '  data.b: 1 → 2', '  data.c: 1 → 2', '  … and 1 more change']);
    expect(summary.lines).toHaveLength(1 + 5 * 5);
    // Each cut object in full, then the three left out.
    expect(summary.rest.filter((l) => l.endsWith('(in full)'))).toHaveLength(5);
    expect(summary.rest).toContain('~ ConfigMap web/cm-7');
    expect(summary.rest.at(-1)).toBe('  data.d: 1 → 2');
  });

  it('says how many objects and changes the bounds left out', () => {
    const many = (n: number, value: string) => Array.from({ length: n }, (_, i) => configMap(`cm-${i}`, { a: value, b: value, c: value })).join('');
    const diff = readableDiff(many(4, '1'), many(4, '2'), { limits: { objects: 2, changesPerObject: 2, changes: 100, valueChars: 80, hunkLines: 4 } });
    expect(readableDiffText(diff)).toEqual([
      'objects: 4 changed',
      '~ ConfigMap web/cm-0',
      '  data.a: 1 → 2',
      '  data.b: 1 → 2',
      '  … and 1 more change',
      '~ ConfigMap web/cm-1',
      '  data.a: 1 → 2',
      '  data.b: 1 → 2',
      '  … and 1 more change',
      '… and 2 more objects, too many to show',
    ]);
  });

  it('names a field added or removed as (unset) on that side, and a hidden value as changed', () => {
    const diff = readableDiff(configMap('c', { gone: 'x', dsn: 'db://pw-old' }), configMap('c', { added: 'y', dsn: 'db://pw-new' }), {
      redact: (t) => t.replace('pw-new', '[redacted]'),
    });
    expect(summarizeReadableDiff(diff).lines.slice(2)).toEqual([
      '  data.added: (unset) → y',
      '  data.dsn: changed (value not shown)',
      '  data.gone: x → (unset)',
    ]);
  });

  it('says when nothing changed', () => {
    expect(summarizeReadableDiff(readableDiff(configMap('c', { a: '1' }), configMap('c', { a: '1' })))).toEqual({ lines: ['objects: no change'], rest: [] });
    expect(readableDiffText(readableDiff('', ''))).toEqual(['objects: no change']);
  });
});
