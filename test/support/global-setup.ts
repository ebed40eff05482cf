import type { TestProject } from 'vitest/node';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { devDown, type DevEnvironment } from '../../src/dev/environment.js';
import { startEnvironmentWithCrds } from '../../src/dev/harness/index.js';
import { createLogger } from '../../src/core/log.js';

declare module 'vitest' {
  export interface ProvidedContext {
    devEnv: DevEnvironment;
  }
}

/**
 * Starts one real environment for the whole run (Kubernetes, Redis, helm, chart repository)
 * in its own state dir, and stops it afterwards. HELMCREW_TEST_STATE_DIR reuses a running one.
 */
export default async function setup(project: TestProject) {
  const log = createLogger('test-env', process.env.LOG_LEVEL ?? 'warn');
  const reuse = process.env.HELMCREW_TEST_STATE_DIR;
  const stateDir = reuse ?? (await mkdtemp(join(tmpdir(), 'helmcrew-test-')));
  const started = Date.now();
  const { env } = await startEnvironmentWithCrds({ stateDir, log });
  console.error(`test environment up in ${((Date.now() - started) / 1000).toFixed(1)}s (${stateDir})`);
  project.provide('devEnv', env);
  return async () => {
    if (!reuse) await devDown({ stateDir, log });
  };
}
