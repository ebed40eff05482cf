import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_DOC, envRows, renderConfigTable, TABLE_END, TABLE_START, withConfigTable } from '../../src/cli/config-table.js';
import { CONTROLLER_ENV } from '../../src/controller/config.js';
import { declareEnv } from '../../src/core/config/registry.js';

const SRC = join(import.meta.dirname, '../../src');

/**
 * The names of the environment variables a source file reads: `process.env.X`, `process.env['X']`,
 * `env.X` (any `…env`/`…Env` object), `env['X']`, a parser handed `(env, 'X'`, and a declaration's
 * reader (`.raw('X')`, `.text('X')`, `.positiveInt('X')`, … `.fallback('X')`).
 */
function envReadsIn(source: string): string[] {
  const patterns = [
    /process\.env(?:\?\.|\.)([A-Za-z_][A-Za-z0-9_]*)/g,
    /process\.env\[\s*['"`]([^'"`]+)['"`]\s*\]/g,
    /\b[A-Za-z_]*[eE]nv(?:\?\.|\.)([A-Z][A-Z0-9_]+)\b/g,
    /\b[A-Za-z_]*[eE]nv\[\s*['"`]([A-Z][A-Z0-9_]+)['"`]\s*\]/g,
    /\(\s*[A-Za-z_]*[eE]nv\s*,\s*['"`]([A-Z][A-Z0-9_]+)['"`]/g,
    /\.(?:raw|text|positiveInt|positiveNumber|boolean|parse|fallback)\(\s*['"`]([A-Z][A-Z0-9_]+)['"`]/g,
  ];
  return [...new Set(patterns.flatMap((pattern) => [...source.matchAll(pattern)].map((m) => m[1]!)))].sort();
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every name read anywhere in src/, with the files that read it. */
function readsInSrc(): Map<string, string[]> {
  const reads = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    for (const name of envReadsIn(readFileSync(file, 'utf8'))) reads.set(name, [...(reads.get(name) ?? []), file.slice(SRC.length + 1)]);
  }
  return reads;
}

describe('the environment variables the code reads', () => {
  it.each([
    { name: 'process.env.X', source: 'const a = process.env.FOO_BAR;', want: ['FOO_BAR'] },
    { name: "process.env['X']", source: "const a = process.env['FOO'];", want: ['FOO'] },
    { name: 'env.X and env?.X', source: 'f(env.ONE, processEnv?.TWO)', want: ['ONE', 'TWO'] },
    { name: "env['X']", source: "env['THREE']", want: ['THREE'] },
    { name: 'a parser given the name', source: "positiveInt(env, 'FOUR', 1)", want: ['FOUR'] },
    { name: 'a declaration’s reader', source: "own.positiveInt('FIVE'); shared.raw('SIX'); X_ENV.fallback('SEVEN')", want: ['FIVE', 'SEVEN', 'SIX'] },
    { name: 'not a read: lower-case fields, keys set for a child', source: 'env.kubeconfig; ({ KUBECONFIG: env.kubeconfig }); const ENV = 1;', want: [] },
  ])('the scan finds $name', ({ source, want }) => {
    expect(envReadsIn(source)).toEqual(want);
  });

  it('are all declared in the registry', () => {
    const declared = new Set(envRows().map((row) => row.name));
    const undeclared = [...readsInSrc()].filter(([name]) => !declared.has(name)).map(([name, files]) => `${name} (${files.join(', ')})`);
    expect(undeclared, 'declare these in their reader’s declaration (src/core/config/registry.ts)').toEqual([]);
  });

  it('and the registry declares nothing the code does not read', () => {
    const reads = readsInSrc();
    const unread = envRows()
      .map((row) => row.name)
      .filter((name) => !reads.has(name));
    expect(unread).toEqual([]);
  });

  it('each name is declared once', () => {
    const names = envRows().map((row) => row.name);
    expect(names.length).toBeGreaterThan(50);
    expect(new Set(names).size).toBe(names.length);
  });
});

describe('docs/configuration.md', () => {
  it('holds the table generated from the registry (run `npx tsx src/cli/main.ts config write`)', () => {
    const doc = readFileSync(CONFIG_DOC, 'utf8');
    expect(doc).toContain(TABLE_START);
    expect(doc).toContain(TABLE_END);
    expect(doc).toBe(withConfigTable(doc, renderConfigTable(envRows())));
  });

  it('a changed default changes the table', () => {
    const rows = envRows().map((row) => (row.name === 'HELMCREW_CONCURRENCY' ? { ...row, default: 5 } : row));
    expect(renderConfigTable(rows)).not.toBe(renderConfigTable(envRows()));
    expect(renderConfigTable(rows)).toContain('| `HELMCREW_CONCURRENCY` | controller | `5` |');
  });

  it('escapes a | in a cell and names large byte counts in MiB', () => {
    const table = renderConfigTable([{ name: 'X', parts: ['controller'], default: 3 * 1024 * 1024, meaning: 'a | b' }]);
    expect(table).toContain('| `X` | controller | `3145728` (3 MiB) | a \\| b |');
  });
});

describe('a declaration reads only its own names, with their declared defaults', () => {
  const vars = declareEnv(['controller'], {
    COUNT: { default: 4, meaning: 'a count' },
    NAME: { default: 'x', meaning: 'a name' },
    FLAG: { default: false, meaning: 'a flag' },
    FREE: { meaning: 'no default' },
  });

  it.each([
    { name: 'unset: the default', env: {}, want: { count: 4, name: 'x', flag: false, free: undefined } },
    { name: 'empty: the default', env: { COUNT: '', NAME: '', FLAG: '' }, want: { count: 4, name: 'x', flag: false, free: undefined } },
    { name: 'set', env: { COUNT: '7', NAME: 'y', FLAG: 'true', FREE: 'z' }, want: { count: 7, name: 'y', flag: true, free: 'z' } },
  ])('$name', ({ env, want }) => {
    const read = vars.in(env);
    expect({ count: read.positiveInt('COUNT'), name: read.text('NAME'), flag: read.boolean('FLAG'), free: read.raw('FREE') }).toEqual(want);
  });

  it('refuses a bad value naming the variable', () => {
    expect(() => vars.in({ COUNT: '-1' }).positiveInt('COUNT')).toThrow('COUNT must be a positive whole number, got "-1"');
  });

  it('the compiler refuses an undeclared name or a parser that does not fit the default', () => {
    const read = CONTROLLER_ENV.in({});
    // @ts-expect-error: not declared
    expect(read.raw('HELMCREW_NOT_DECLARED')).toBeUndefined();
    // @ts-expect-error: KUSTOMIZE_BIN's default is a string
    expect(() => read.positiveInt('KUSTOMIZE_BIN')).toThrow(TypeError);
    // @ts-expect-error: WATCH_NAMESPACES has no default to fall back to
    expect(() => read.text('WATCH_NAMESPACES')).toThrow(TypeError);
  });
});
