import { execa } from 'execa';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChartArchiveError, findTarFile, readChartArchiveFile } from '../../src/controller/charts/archive-file.js';
import { parseValuesFile, valuesFilePathProblem } from '../../src/controller/reconcile/desired/values-file-parse.js';
import { ValuesError } from '../../src/controller/reconcile/desired/values-from.js';
import { readFolderFile } from '../../src/controller/reconcile/desired/values-files.js';

describe('valuesFilePathProblem', () => {
  it('takes paths below the chart folder and refuses the rest', () => {
    for (const ok of ['values-prod.yaml', 'env/prod.yaml', '.hidden.yaml', 'a/b/c.yml']) expect(valuesFilePathProblem(ok)).toBeUndefined();
    expect(valuesFilePathProblem('/etc/passwd')).toBe('must be relative to the chart folder');
    for (const bad of ['../x.yaml', 'a/../../x.yaml', './x.yaml', 'a//b.yaml', 'a/', '..'])
      expect(valuesFilePathProblem(bad)).toMatch(/no \., \.\. or empty parts/);
    expect(valuesFilePathProblem('a\\b.yaml')).toBe('must use / between folders');
    expect(valuesFilePathProblem('')).toBe('is empty');
  });
});

describe('parseValuesFile', () => {
  it('parses a map, takes empty as no values, refuses a list and bad YAML', () => {
    expect(parseValuesFile('a: 1\nb: { c: yes }\n', 'f')).toEqual({ a: 1, b: { c: true } });
    expect(parseValuesFile('', 'f')).toEqual({});
    expect(() => parseValuesFile('- 1\n', 'values file x of chart c 1')).toThrow(new ValuesError('values file x of chart c 1 must hold a YAML map of values'));
    expect(() => parseValuesFile('a: [\n', 'f')).toThrow(ValuesError);
  });
});

describe('reading a file from a chart archive', () => {
  let dir: string;
  let archive: Buffer;
  const long = `${'deep/'.repeat(30)}values.yaml`;

  // Debian's tar (GNU format: long names as 'L' records) and a pax archive, as Go's archive/tar writes them.
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'helmcrew-archive-'));
    const chart = join(dir, 'mychart');
    await mkdir(join(chart, 'env'), { recursive: true });
    await mkdir(join(chart, long, '..'), { recursive: true });
    await writeFile(join(chart, 'Chart.yaml'), 'name: mychart\n');
    await writeFile(join(chart, 'values-prod.yaml'), 'colour: red\n');
    await writeFile(join(chart, 'env', 'prod.yaml'), 'size: large\n');
    await writeFile(join(chart, long), 'deep: true\n');
    await symlink('/etc/hostname', join(chart, 'link.yaml'));
    await execa('tar', ['-czf', join(dir, 'gnu.tgz'), '--format=gnu', '-C', dir, 'mychart']);
    await execa('tar', ['-czf', join(dir, 'pax.tgz'), '--format=pax', '-C', dir, 'mychart']);
    archive = await readFile(join(dir, 'gnu.tgz'));
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('finds files relative to the chart folder, in both formats, long names included', async () => {
    for (const name of ['gnu.tgz', 'pax.tgz']) {
      const tgz = await readFile(join(dir, name));
      expect((await readChartArchiveFile(tgz, 'values-prod.yaml'))?.toString()).toBe('colour: red\n');
      expect((await readChartArchiveFile(tgz, 'env/prod.yaml'))?.toString()).toBe('size: large\n');
      expect((await readChartArchiveFile(tgz, long))?.toString()).toBe('deep: true\n');
      expect(await readChartArchiveFile(tgz, 'values-missing.yaml')).toBeUndefined();
      // a symlink is not a file of the chart: nothing outside the archive is ever read
      expect(await readChartArchiveFile(tgz, 'link.yaml')).toBeUndefined();
      // the chart folder's own name is not part of the path
      expect(await readChartArchiveFile(tgz, 'mychart/values-prod.yaml')).toBeUndefined();
    }
  });

  it('refuses what is not a .tgz and a truncated archive', async () => {
    await expect(readChartArchiveFile(Buffer.from('not gzip'), 'values.yaml')).rejects.toThrow(ChartArchiveError);
    const { gunzipSync } = await import('node:zlib');
    const tar = gunzipSync(archive);
    // cut inside values-prod.yaml's body
    const cut = tar.subarray(0, tar.indexOf('colour: red') + 3);
    expect(() => findTarFile(cut, 'nothing-here.yaml')).toThrow('the chart archive is truncated');
    expect(await readChartArchiveFile(gzipSync(Buffer.alloc(1024)), 'values.yaml')).toBeUndefined();
  });
});

describe('reading a file from a git chart folder', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'helmcrew-folder-'));
    await mkdir(join(dir, 'chart', 'env'), { recursive: true });
    await writeFile(join(dir, 'secret.yaml'), 'outside: true\n');
    await writeFile(join(dir, 'chart', 'env', 'prod.yaml'), 'size: large\n');
    await symlink('env/prod.yaml', join(dir, 'chart', 'inside.yaml'));
    await symlink('../secret.yaml', join(dir, 'chart', 'escape.yaml'));
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('reads files and symlinks that stay inside; refuses an escape; a missing file or a folder is undefined', async () => {
    const chart = join(dir, 'chart');
    expect(await readFolderFile(chart, 'env/prod.yaml')).toBe('size: large\n');
    expect(await readFolderFile(chart, 'inside.yaml')).toBe('size: large\n');
    await expect(readFolderFile(chart, 'escape.yaml')).rejects.toThrow('values file escape.yaml leads outside the chart folder');
    expect(await readFolderFile(chart, 'values-missing.yaml')).toBeUndefined();
    expect(await readFolderFile(chart, 'env/prod.yaml/x')).toBeUndefined();
    expect(await readFolderFile(chart, 'env')).toBeUndefined();
  });
});
