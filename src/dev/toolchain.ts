// Makes sure the locally built control-plane binaries exist. The build itself lives in
// scripts/build-toolchain.sh (Go modules, no downloads of release binaries); this only decides
// whether to run it and shows its progress.
import { access, constants } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import type { Logger } from '../core/log.js';
import { UPSTREAM_STAGE_FILES } from './kwok-stages.js';
import {
  AGE_VERSION,
  cacheDir,
  COSIGN_VERSION,
  ETCD_VERSION,
  HELM_VERSION,
  K8S_VERSION,
  KUSTOMIZE_VERSION,
  KWOK_VERSION,
  NOTATION_GO_VERSION,
  REPO_ROOT,
  SOPS_VERSION,
  toolchainPaths,
  type ToolchainPaths,
} from './paths.js';

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export async function missingBinaries(paths: ToolchainPaths): Promise<string[]> {
  const checks = await Promise.all((Object.values(paths) as string[]).map(async (p) => ((await isExecutable(p)) ? undefined : p)));
  // kwok's stage files are installed beside its binary by the same script.
  const stages = join(dirname(paths.kwok), 'stages', UPSTREAM_STAGE_FILES[0]);
  const stagesMissing = await access(stages).then(
    () => undefined,
    () => stages,
  );
  return [...checks, stagesMissing].filter((p): p is string => p !== undefined);
}

/**
 * Returns the binary paths, building what is missing first. Warm, this is a few stat calls; cold,
 * the script runs for many minutes and its progress lines go straight to our stderr.
 */
export async function ensureToolchain(log: Logger): Promise<ToolchainPaths> {
  const cache = cacheDir();
  const paths = toolchainPaths(cache);
  const missing = await missingBinaries(paths);
  if (missing.length === 0) return paths;

  log.info({ cache, missing }, 'building the local toolchain (cold builds take many minutes)');
  const script = join(REPO_ROOT, 'scripts', 'build-toolchain.sh');
  try {
    await execa('bash', [script, 'all'], {
      // Stdout stays free for command output (`dev env`), so everything goes to stderr.
      stdin: 'ignore',
      stdout: process.stderr,
      stderr: process.stderr,
      env: {
        HELMCREW_CACHE: cache,
        K8S_VERSION,
        ETCD_VERSION,
        KWOK_VERSION,
        HELM_VERSION,
        KUSTOMIZE_VERSION,
        SOPS_VERSION,
        AGE_VERSION,
        COSIGN_VERSION,
        NOTATION_GO_VERSION,
      },
    });
  } catch (err) {
    throw new Error(`building the toolchain failed (${script}); its output is above`, { cause: err });
  }
  const stillMissing = await missingBinaries(paths);
  if (stillMissing.length > 0) {
    throw new Error(`the toolchain build finished but these are missing: ${stillMissing.join(', ')}`);
  }
  return paths;
}
