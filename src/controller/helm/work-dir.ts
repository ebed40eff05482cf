import { mkdir } from 'node:fs/promises';
import type { Logger } from '../../core/log.js';
import { removeLeftoverValuesFiles } from './helm-client.js';
import { removeLeftoverPrivateFiles } from './private-files.js';

/**
 * The controller's work directory, private to it, cleared of what a stopped controller left
 * behind: values files and credential files written for helm (they may hold Secret values).
 */
export async function prepareWorkDir(workDir: string, log: Logger): Promise<void> {
  await mkdir(workDir, { recursive: true, mode: 0o700 });
  const leftovers = await removeLeftoverValuesFiles(workDir);
  if (leftovers.length > 0) log.warn({ workDir, removed: leftovers.length }, 'removed values files left by a stopped controller');
  const credentialLeftovers = await removeLeftoverPrivateFiles(workDir);
  if (credentialLeftovers.length > 0) log.warn({ workDir, removed: credentialLeftovers.length }, 'removed credential files left by a stopped controller');
}
