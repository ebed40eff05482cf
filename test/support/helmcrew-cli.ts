import { execa, type Options } from 'execa';
import { join } from 'node:path';
import { REPO_ROOT } from '../../src/dev/paths.js';

/** The CLI's entry, as `npx helmcrew` and the image run it. */
export const HELMCREW_BIN = join(REPO_ROOT, 'bin/helmcrew.js');

/**
 * `helmcrew …` as a person runs it, in the repository: node and bin/helmcrew.js straight, not
 * `npx tsx src/cli/main.ts` (npx alone costs about a second a call, and bin/ loads the command's
 * libraries before tsx: docs/testing.md). Never rejects: the test reads the exit code.
 */
export function runHelmcrewCli<const O extends Options>(args: readonly string[], options: O = {} as O) {
  return execa(process.execPath, [HELMCREW_BIN, ...args], { cwd: REPO_ROOT, ...options, reject: false as const });
}
