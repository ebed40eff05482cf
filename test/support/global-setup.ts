import type { TestProject } from 'vitest/node';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { devDown } from '../../src/dev/environment.js';
import type { DevEnvironment } from '../../src/dev/env-file.js';
import { namespacesAddedSince, readNamespaces, startEnvironmentWithCrds, waitNamespacesGone } from '../../src/dev/harness/index.js';
import { createLogger } from '../../src/core/log.js';

declare module 'vitest' {
  export interface ProvidedContext {
    devEnv: DevEnvironment;
  }
}

/** How long the last file's namespaces may take to go: the namespace controller waits 5 s before it starts on one. */
const LAST_NAMESPACES_GONE_MS = 120_000;

/** The environment both integration projects share, and how many of them still use it. */
interface SharedEnvironment {
  started: Promise<{ env: DevEnvironment; teardown: () => Promise<void> }>;
  users: number;
}
const SHARED_KEY = Symbol.for('helmcrew.test-environment');

/**
 * Starts one real environment for the whole run (Kubernetes, Redis, helm, chart repository)
 * in its own state dir, and stops it afterwards. HELMCREW_TEST_STATE_DIR reuses a running one.
 * Both integration projects use the same one: vitest runs each project's global set-up in its own
 * module instance but in one process, so the environment is kept on globalThis and stopped by the
 * last teardown. The serial project runs after the side-by-side one has finished (its files have
 * no neighbours either way); a second idle control plane cost ~10 % of a core for the whole run.
 * At the end, every namespace the run created must be gone (namespace-guard.ts checks each file;
 * this catches what holds one other than helmcrew's finalizer): a run leaves the environment as
 * it found it, so the next run on it is not slower.
 */
export default async function setup(project: TestProject) {
  const holder = globalThis as { [SHARED_KEY]?: SharedEnvironment };
  const shared = (holder[SHARED_KEY] ??= { started: startShared(), users: 0 });
  shared.users += 1;
  const { env, teardown } = await shared.started;
  project.provide('devEnv', env);
  return async () => {
    shared.users -= 1;
    if (shared.users === 0) {
      delete holder[SHARED_KEY];
      await teardown();
    }
  };
}

async function startShared(): Promise<{ env: DevEnvironment; teardown: () => Promise<void> }> {
  const log = createLogger('test-env', process.env.LOG_LEVEL ?? 'warn');
  const reuse = process.env.HELMCREW_TEST_STATE_DIR;
  const stateDir = reuse ?? (await mkdtemp(join(tmpdir(), 'helmcrew-test-')));
  const started = Date.now();
  const { env, kubeConfig } = await startEnvironmentWithCrds({ stateDir, log });
  console.error(`test environment up in ${((Date.now() - started) / 1000).toFixed(1)}s (${stateDir})`);
  const before = new Set((await readNamespaces(kubeConfig)).map((ns) => ns.name));
  const teardown = async () => {
    try {
      const created = namespacesAddedSince(before, await readNamespaces(kubeConfig));
      await waitNamespacesGone(kubeConfig, created, LAST_NAMESPACES_GONE_MS);
    } catch (error) {
      // vitest reports an error thrown here but still exits 0: the exit code is set instead.
      console.error(`the run left namespaces behind: ${error instanceof Error ? error.message : String(error)}`);
      process.exitCode = 1;
    } finally {
      if (!reuse) await devDown({ stateDir, log });
    }
  };
  return { env, teardown };
}
