import { execa, type ResultPromise } from 'execa';
import { join } from 'node:path';
import { REPO_ROOT } from '../../src/dev/paths.js';
import type { DevEnvironment } from '../../src/dev/env-file.js';
import { TEST_LABEL } from './notify-fixtures.js';

/** `helmcrew notify` as its own process (so a test can SIGKILL it), serving only this run's Teams. */
export function spawnNotify(env: DevEnvironment, run: string, logFile: string, extraEnv: Record<string, string> = {}): ResultPromise {
  return execa(process.execPath, [join(REPO_ROOT, 'bin/helmcrew.js'), 'notify'], {
    env: {
      KUBECONFIG: env.kubeconfig,
      REDIS_URL: env.redisUrl,
      HELMCREW_QUEUE_PREFIX: run,
      HELMCREW_TEAM_SELECTOR: `${TEST_LABEL}=${run}`,
      HELMCREW_TEAM_REFRESH_MS: '500',
      HELMCREW_NOTIFY_LOCK_MS: '3000',
      LOG_LEVEL: 'info',
      ...extraEnv,
    },
    stdout: 'ignore',
    stderr: { file: logFile },
    reject: false,
  });
}
