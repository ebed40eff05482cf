import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import type { DevEnvironment } from '../../src/dev/env-file.js';
import { pushChart } from '../../src/dev/oci-registry.js';

/** The packaged unicorn archive of `version` in the environment's chart folder. */
export const unicornArchive = (env: DevEnvironment, version: string) => join(env.stateDir, 'charts', `unicorn-${version}.tgz`);

export async function registryLogin(env: DevEnvironment): Promise<{ username: string; password: string }> {
  return { username: env.ociRegistry.username, password: (await readFile(env.ociRegistry.passwordFile, 'utf8')).trim() };
}

/** `oci://host:port/charts` → `oci://host:port/<path>`: a repository path of a test's own. */
export const registryPath = (url: string, path: string) => url.replace(/\/charts$/, `/${path}`);

/** Pushes unicorn `version` to `url` (the auth registry needs `login`). */
export async function pushUnicorn(env: DevEnvironment, url: string, version: string, login?: { username: string; password: string }): Promise<void> {
  await pushChart({ archive: unicornArchive(env, version), url, helmBin: env.helmBin, ...(login ? { login } : {}) });
}

/**
 * unicorn `from` packaged again as version `as` (another colour under the same version: a moved
 * tag once pushed over the old one), pushed to `url`.
 */
export async function pushRepackaged(env: DevEnvironment, url: string, from: string, as: string): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'helmcrew-repackage-'));
  try {
    await execa('tar', ['-xzf', unicornArchive(env, from), '-C', dir]);
    await execa(env.helmBin, ['package', join(dir, 'unicorn'), '--version', as, '--app-version', `${from}-as-${as}`, '--destination', dir]);
    await pushChart({ archive: join(dir, `unicorn-${as}.tgz`), url, helmBin: env.helmBin });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
