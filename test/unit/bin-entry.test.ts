import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

/** A copy of bin/helmcrew.js in a scratch tree whose src/ and dist/ each say who they are. */
async function scratchTree(withSource: boolean): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'helmcrew-bin-'));
  await mkdir(join(dir, 'bin'));
  await copyFile(join(root, 'bin/helmcrew.js'), join(dir, 'bin/helmcrew.js'));
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
});
