// The bench-only environment: a fresh local environment with the CRDs (the harness's), in its own
// state dir under /tmp, taken down at clean-up; or a running one re-used with --state-dir.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { createLogger } from '../../src/core/log.js';
import { devDown } from '../../src/dev/environment.js';
import type { DevEnvironment } from '../../src/dev/env-file.js';
import { startEnvironmentWithCrds } from '../../src/dev/harness/index.js';
import type { Cleanup } from './cleanup.js';
import { say } from './say.js';

export interface BenchEnv {
  env: DevEnvironment;
  kubeConfig: KubeConfig;
  /** The run's own directory (logs, wrappers, charts); it stays after the run. */
  dir: string;
  apiserverPid?: number;
}

/**
 * Brings up a fresh environment in its own state dir under /tmp (or re-uses `reuseStateDir`, left
 * running), applies the CRDs, and registers its take-down.
 */
export async function startBenchEnv(cleanup: Cleanup, reuseStateDir?: string): Promise<BenchEnv> {
  const dir = await mkdtemp(join(tmpdir(), 'helmcrew-bench-'));
  const stateDir = reuseStateDir ?? join(dir, 'state');
  const envLog = createLogger('bench-env', process.env.LOG_LEVEL ?? 'warn');
  if (!reuseStateDir) {
    cleanup.add(`devDown ${stateDir} (logs of the run stay in ${dir})`, async () => {
      await devDown({ stateDir, log: envLog });
      await rm(stateDir, { recursive: true, force: true }); // etcd data etc.; bench-only
    });
  }
  const started = Date.now();
  const { env, kubeConfig } = await startEnvironmentWithCrds({ stateDir, log: envLog });
  say(`environment up in ${((Date.now() - started) / 1000).toFixed(1)}s (${stateDir}${reuseStateDir ? ', re-used, left running' : ''})`);
  return { env, kubeConfig, dir, apiserverPid: env.processes.find((p) => p.name === 'kube-apiserver')?.pid };
}
