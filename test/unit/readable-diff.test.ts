import { describe, expect, it } from 'vitest';
import { DIFF_BOUNDS, pageOf, readableDiff, type ReadableDiffLimits } from '../../src/core/release/readable-diff.js';
import { itemNames, joinPath, keySegment } from '../../src/core/release/readable-path.js';

const deployment = (image: string, replicas = 1, extra = '') => `---
# Source: app/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  replicas: ${replicas}
  template:
    spec:
      containers:
        - name: web
          image: ${image}${extra}
`;
const secret = (password: string) => `---
apiVersion: v1
kind: Secret
metadata:
  name: web-credentials
stringData:
  password: ${password}
`;
const service = `---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  ports:
    - port: 80
`;
const configMap = (data: Record<string, string>, labels: Record<string, string> = {}) =>
  `---\n${JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'page', labels }, data })}\n`;
const page = (color: string) =>
  ['<!doctype html>', '<html>', `<title>The ${color} unicorn</title>`, '<body>', `<h1 style="color:${color}">A unicorn</h1>`, '</body>', '</html>', ''].join(
    '\n',
  );

describe('readable paths', () => {
  it.each([
    { key: 'replicas', want: '.replicas' },
    { key: 'index.html', want: '["index.html"]' },
    { key: 'app.kubernetes.io/version', want: '["app.kubernetes.io/version"]' },
    { key: 'checksum/page', want: '["checksum/page"]' },
    { key: 'a~b', want: '["a~b"]' },
    { key: 'say "hi"', want: '["say \\"hi\\""]' },
    { key: 'kebab-case', want: '["kebab-case"]' },
    { key: '', want: '[""]' },
  ])('key $key → $want', ({ key, want }) => expect(keySegment(key)).toBe(want));

  it('joins segments without a leading dot, and names the root', () => {
    expect(joinPath(['.metadata', '.labels', '["app.kubernetes.io/version"]'])).toBe('metadata.labels["app.kubernetes.io/version"]');
    expect(joinPath(['[0]', '.x'])).toBe('[0].x');
    expect(joinPath([])).toBe('(whole object)');
  });

  it.each([
    { name: 'named items', items: [{ name: 'web' }, { name: 'sidecar' }], want: ['web', 'sidecar'] },
    { name: 'a duplicate name', items: [{ name: 'web' }, { name: 'web' }], want: undefined },
    { name: 'an item without a name', items: [{ name: 'web' }, { port: 80 }], want: undefined },
    { name: 'a name with a bracket', items: [{ name: 'a]b' }], want: undefined },
    { name: 'scalars', items: ['a', 'b'], want: undefined },
    { name: 'an empty list', items: [], want: undefined },
  ])('items by name: $name', ({ items, want }) => expect(itemNames(items)).toEqual(want));
});

describe('readableDiff', () => {
  it('names added, removed and changed objects, each changed field with its values', () => {
    const diff = readableDiff(deployment('nginx:1.26') + secret('hunter2-old'), deployment('nginx:1.27', 2) + service);
    expect(diff.counts).toEqual({ added: 1, removed: 1, changed: 1 });
    expect(diff.objects.map((o) => [o.change, o.kind, o.name])).toEqual([
      ['added', 'Service', 'web'],
      ['removed', 'Secret', 'web-credentials'],
      ['changed', 'Deployment', 'web'],
    ]);
    expect(diff.objects[2]).toMatchObject({ namespace: 'shop', omittedChanges: 0 });
    expect(diff.objects[2]!.changes).toEqual([
      { path: 'spec.replicas', before: '1', after: '2' },
      { path: 'spec.template.spec.containers[name=web].image', before: 'nginx:1.26', after: 'nginx:1.27' },
    ]);
  });

  it('gives labels and data keys with dots and slashes as ["…"], and unset sides as absent', () => {
    const diff = readableDiff(
      configMap({ 'index.html': 'pink' }, { 'app.kubernetes.io/version': '1.0.0' }),
      configMap({ 'index.html': 'blue', 'new.txt': 'x' }, { 'app.kubernetes.io/version': '2.0.0' }),
    );
    expect(diff.objects[0]!.changes).toEqual([
      { path: 'data["index.html"]', before: 'pink', after: 'blue' },
      { path: 'data["new.txt"]', after: 'x' },
      { path: 'metadata.labels["app.kubernetes.io/version"]', before: '1.0.0', after: '2.0.0' },
    ]);
  });

  it('compares named list items by name: a reorder is no change, an inserted container is one change', () => {
    const two = (first: string, second: string) =>
      deployment('x:1', 1, `\n        - name: ${first}\n          image: ${first}:1\n        - name: ${second}\n          image: ${second}:1`);
    expect(readableDiff(two('a', 'b'), two('b', 'a')).objects[0]!.changes).toEqual([]);
    const inserted = readableDiff(deployment('x:1'), deployment('x:1', 1, '\n        - name: sidecar\n          image: envoy:1'));
    expect(inserted.objects[0]!.changes).toEqual([{ path: 'spec.template.spec.containers[name=sidecar]', after: '{"image":"envoy:1","name":"sidecar"}' }]);
  });

  it('walks lists without names by index when their length is the same, else shows the whole list', () => {
    const args = (list: string[]) => deployment('x:1', 1, `\n          args: ${JSON.stringify(list)}`);
    expect(readableDiff(args(['--a', '--b']), args(['--a', '--c'])).objects[0]!.changes).toEqual([
      { path: 'spec.template.spec.containers[name=web].args[1]', before: '--b', after: '--c' },
    ]);
    expect(readableDiff(args(['--a']), args(['--a', '--c'])).objects[0]!.changes).toEqual([
      { path: 'spec.template.spec.containers[name=web].args', before: '["--a"]', after: '["--a","--c"]' },
    ]);
  });

  it('shows a long string as its changed part with context, elided', () => {
    const html = (color: string) =>
      `<html><head><meta charset="utf-8"><title>unicorn</title></head><body><h1 style="color:${color}">A unicorn</h1></body></html>`;
    const [change] = readableDiff(configMap({ page: html('pink') }), configMap({ page: html('blue') })).objects[0]!.changes;
    expect(change).toEqual({ path: 'data.page', before: '…h1 style="color:pink">A unicorn</h1>…', after: '…h1 style="color:blue">A unicorn</h1>…' });
  });

  it('shows a multi-line string as its changed lines, each changed in place as its changed part', () => {
    const [change] = readableDiff(configMap({ 'index.html': page('pink') }), configMap({ 'index.html': page('blue') })).objects[0]!.changes;
    expect(change).toEqual({
      path: 'data["index.html"]',
      before: '8 lines',
      after: '8 lines',
      lines: {
        hunks: [
          { line: 3, removed: ['<title>The pink unicorn</title>'], added: ['<title>The blue unicorn</title>'] },
          { line: 5, removed: ['<h1 style="color:pink">A unicorn</h1>'], added: ['<h1 style="color:blue">A unicorn</h1>'] },
        ],
        omittedLines: 0,
      },
    });
  });

  it('keeps lines added or removed apart from lines changed, and bounds them', () => {
    const before = ['a', 'b', 'c'].join('\n');
    const after = ['a', 'x', 'y', 'z', 'c'].join('\n');
    const limits = { ...DIFF_BOUNDS, hunkLines: 3 };
    const [change] = readableDiff(configMap({ f: before }), configMap({ f: after }), { limits }).objects[0]!.changes;
    expect(change!.lines).toEqual({ hunks: [{ line: 2, removed: ['b'], added: ['x', 'y'] }], omittedLines: 1 });
  });

  it('compares a very long text as one block, bounded, without a quadratic table', () => {
    const big = (tag: string) => Array.from({ length: 3000 }, (_, i) => `line ${i} ${tag}`).join('\n');
    const started = Date.now();
    const [change] = readableDiff(configMap({ f: big('a') }), configMap({ f: big('b') })).objects[0]!.changes;
    expect(Date.now() - started).toBeLessThan(2000);
    expect(change!.lines!.hunks.flatMap((h) => [...h.removed, ...h.added])).toHaveLength(DIFF_BOUNDS.hunkLines);
    expect(change!.lines!.omittedLines).toBe(6000 - DIFF_BOUNDS.hunkLines);
  });

  it('says a Secret changed without its keys or values', () => {
    const diff = readableDiff(secret('hunter2-old'), secret('hunter2-new'));
    expect(diff.objects).toEqual([
      { kind: 'Secret', apiVersion: 'v1', name: 'web-credentials', change: 'changed', changes: [], omittedChanges: 0, hidden: true },
    ]);
    expect(JSON.stringify(diff)).not.toMatch(/hunter2|password|stringData/);
  });

  it('hides a value from a Secret on both sides of a change, wherever the chart put it', () => {
    const redact = (text: string) => text.replaceAll('s3cret-new', '[redacted]');
    const diff = readableDiff(
      configMap({ dsn: 'postgres://app:s3cret-old@db', color: 'pink' }),
      configMap({ dsn: 'postgres://app:s3cret-new@db', color: 'blue' }),
      { redact },
    );
    expect(diff.objects[0]!.changes).toEqual([
      { path: 'data.color', before: 'pink', after: 'blue' },
      { path: 'data.dsn', hidden: true },
    ]);
    expect(JSON.stringify(diff)).not.toContain('s3cret');
    // A Secret's value that goes away is hidden too (only the side before holds it).
    const gone = readableDiff(configMap({ token: 'tok-s3cret-new' }), configMap({ token: 'plain' }), { redact });
    expect(gone.objects[0]!.changes).toEqual([{ path: 'data.token', hidden: true }]);
  });

  it('withholds values but still shows images when asked (nobody can name the Secrets)', () => {
    const diff = readableDiff(deployment('nginx:1.26', 1), deployment('nginx:1.27', 2), { withholdValues: true });
    expect(diff.objects[0]!.changes).toEqual([
      { path: 'spec.replicas', hidden: true },
      { path: 'spec.template.spec.containers[name=web].image', before: 'nginx:1.26', after: 'nginx:1.27' },
    ]);
  });

  it('finds nothing between the same objects written in another order', () => {
    expect(readableDiff(service + deployment('nginx:1.27'), deployment('nginx:1.27') + service)).toEqual({
      counts: { added: 0, removed: 0, changed: 0 },
      objects: [],
      omittedObjects: 0,
    });
  });

  it('treats everything as added when nothing is deployed', () => {
    expect(readableDiff('', service).objects.map((o) => [o.change, o.kind])).toEqual([['added', 'Service']]);
  });

  it('refuses a manifest that is not YAML, with a message', () => {
    expect(() => readableDiff('kind: [unclosed', service)).toThrow(/not valid YAML/);
  });

  it('is bounded: objects, changes per object and in all, each with a count of what was left out', () => {
    const many = (n: number, value: string) =>
      Array.from({ length: n }, (_, i) =>
        configMap(Object.fromEntries(Array.from({ length: 6 }, (_, k) => [`k${k}`, value]))).replace('"page"', `"page-${i}"`),
      ).join('');
    const limits: ReadableDiffLimits = { ...DIFF_BOUNDS, objects: 4, changesPerObject: 4, changes: 10 };
    const diff = readableDiff(many(7, 'a'), many(7, 'b'), { limits });
    expect(diff.counts).toEqual({ added: 0, removed: 0, changed: 7 });
    expect(diff.omittedObjects).toBe(3);
    expect(diff.objects.map((o) => [o.changes.length, o.omittedChanges])).toEqual([
      [4, 2],
      [4, 2],
      [2, 4],
      [0, 6],
    ]);
  });

  it('cuts long values to the bound', () => {
    const [change] = readableDiff(configMap({ a: 'x'.repeat(5000) }), configMap({ a: 'y'.repeat(5000) })).objects[0]!.changes;
    expect(change!.before!.length).toBeLessThanOrEqual(DIFF_BOUNDS.valueChars);
    expect(change!.before!.endsWith('…')).toBe(true);
  });
});

describe('pageOf', () => {
  const diff = readableDiff('', Array.from({ length: 7 }, (_, i) => service.replace('name: web', `name: svc-${i}`)).join(''));

  it.each([
    { page: 1, size: 3, names: ['svc-0', 'svc-1', 'svc-2'], at: 1 },
    { page: 3, size: 3, names: ['svc-6'], at: 3 },
    { page: 9, size: 3, names: ['svc-6'], at: 3 },
    { page: 0, size: 3, names: ['svc-0', 'svc-1', 'svc-2'], at: 1 },
    { page: Number.NaN, size: 0, names: ['svc-0'], at: 1 },
  ])('page $page of size $size', ({ page, size, names, at }) => {
    const shown = pageOf(diff, page, size);
    expect(shown.objects.map((o) => o.name)).toEqual(names);
    expect(shown).toMatchObject({ page: at, total: 7, omittedObjects: 0 });
  });

  it('counts pages and keeps what the bounds left out', () => {
    const bounded = readableDiff('', Array.from({ length: 7 }, (_, i) => service.replace('name: web', `name: svc-${i}`)).join(''), {
      limits: { ...DIFF_BOUNDS, objects: 5 },
    });
    expect(pageOf(bounded, 1, 2)).toMatchObject({ pages: 3, size: 2, total: 5, omittedObjects: 2 });
  });
});
