import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

/** A copy of bin/ in a scratch tree whose src/ and dist/ each say who they are. */
async function scratchTree(withSource: boolean): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'helmcrew-bin-'));
  await mkdir(join(dir, 'bin'));
  for (const file of ['helmcrew.js', 'native-first.js']) await copyFile(join(root, 'bin', file), join(dir, 'bin', file));
  await writeFile(join(dir, 'package.json'), '{"type":"module"}');
  await symlink(join(root, 'node_modules'), join(dir, 'node_modules'));
  await mkdir(join(dir, 'dist/cli'), { recursive: true });
  await writeFile(join(dir, 'dist/cli/main.js'), "console.log('dist');\n");
  if (withSource) {
    await mkdir(join(dir, 'src/cli'), { recursive: true });
    await writeFile(join(dir, 'src/cli/main.ts'), "const from: string = 'source';\nconsole.log(from);\n");
  }
  return dir;
}

describe('bin/helmcrew.js', () => {
  it.each([
    { name: 'a checkout runs the source even when an old dist/ is there', withSource: true, want: 'source' },
    { name: 'the image (dist/ and no src/) runs the compiled CLI', withSource: false, want: 'dist' },
  ])(
    '$name',
    async ({ withSource, want }) => {
      const dir = await scratchTree(withSource);
      try {
        const { stdout } = await promisify(execFile)(process.execPath, [join(dir, 'bin/helmcrew.js')], { cwd: dir });
        expect(stdout.trim()).toBe(want);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    30_000,
  );

  // tsx's hooks slow every ES module loaded after them (bin/native-first.js): a command's big
  // libraries come first. The recorder sees every module resolved, in order.
  it.each([
    { command: 'crds', first: ['/node_modules/@sinclair/typebox/'] },
    { command: 'config', first: [] },
  ])(
    'in a checkout, `helmcrew $command` loads its big libraries before tsx, and no other',
    async ({ command, first }) => {
      const dir = await scratchTree(true);
      const file = join(dir, 'modules.txt');
      try {
        await promisify(execFile)(process.execPath, ['--import', join(root, 'test/support/record-modules.mjs'), join(dir, 'bin/helmcrew.js'), command], {
          cwd: dir,
          env: { ...process.env, RECORD_MODULES_TO: file },
        });
        const modules = (await readFile(file, 'utf8')).split('\n').filter(Boolean);
        const tsx = modules.findIndex((m) => m.includes('/node_modules/tsx/'));
        expect(tsx).toBeGreaterThan(0);
        const libraries = modules.slice(0, tsx).filter((m) => m.includes('/node_modules/'));
        expect(first.filter((library) => !libraries.some((m) => m.includes(library)))).toEqual([]);
        expect(libraries.filter((m) => !first.some((library) => m.includes(library)))).toEqual([]);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    30_000,
  );
});
