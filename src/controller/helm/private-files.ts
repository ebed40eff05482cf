import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** Folders of files with credentials in them; removed after use, and at start in case a killed controller left one. */
const PREFIX = 'auth-';

/**
 * Writes `files` into a fresh folder only the controller's user can enter (mkdtemp makes it 0700;
 * each file 0600), runs `use` with their paths, and removes the folder whatever happens. How
 * credentials reach helm: never argv, never the environment (both visible to other processes).
 */
export async function withPrivateFiles<T>(
  workDir: string,
  files: Record<string, string | Buffer>,
  use: (paths: Record<string, string>, dir: string) => Promise<T>,
): Promise<T> {
  const dir = await mkdtemp(join(workDir, PREFIX));
  try {
    const paths: Record<string, string> = {};
    for (const [name, content] of Object.entries(files)) {
      paths[name] = join(dir, name);
      // A name may hold folders (a helm plugin, kustomize layers): they are private too.
      if (name.includes('/')) await mkdir(dirname(paths[name]), { recursive: true, mode: 0o700 });
      await writeFile(paths[name], content, { mode: 0o600, flag: 'wx' });
    }
    return await use(paths, dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Removes credential folders a killed controller left behind; returns their names. */
export async function removeLeftoverPrivateFiles(workDir: string): Promise<string[]> {
  const entries = await readdir(workDir).catch(() => [] as string[]);
  const leftovers = entries.filter((name) => name.startsWith(PREFIX));
  await Promise.all(leftovers.map((name) => rm(join(workDir, name), { recursive: true, force: true })));
  return leftovers;
}
