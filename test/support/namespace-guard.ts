// Runs around every integration test file (vitest.config.ts, setupFiles): after the file's own
// clean-up, any namespace it created must be on its way out. One left standing, or Terminating
// while a HelmRelease keeps helmcrew's finalizer (its controller is stopped: nobody removes it),
// would stay for good and slow every later file (the namespace controller retries it every few
// seconds). The file fails, naming it, and the guard deletes it so the files after it do not pay.
import { afterAll, beforeAll, inject } from 'vitest';
import { loadKubeConfig } from '../../src/core/kube/client.js';
// The harness's files themselves, not its index: a guard around every file loads no more than it needs.
import { namespacesLeftBehind } from '../../src/dev/harness/left-behind.js';
import { readNamespaces, readReleasesWithFinalizers } from '../../src/dev/harness/namespace-state.js';
import { deleteNamespaceWithoutController } from '../../src/dev/harness/namespaces.js';

const kubeConfig = loadKubeConfig(inject('devEnv').kubeconfig);
let before: Set<string> | undefined;

beforeAll(async () => {
  before = new Set((await readNamespaces(kubeConfig)).map((ns) => ns.name));
});

// Registered first, so it runs after every other afterAll of the file (vitest's hooks run as a stack).
afterAll(async () => {
  if (!before) return; // the beforeAll above failed and said so
  const [namespaces, releases] = await Promise.all([readNamespaces(kubeConfig), readReleasesWithFinalizers(kubeConfig)]);
  const left = namespacesLeftBehind(before, namespaces, releases);
  if (left.length === 0) return;
  await Promise.all(left.map((l) => deleteNamespaceWithoutController(kubeConfig, l.namespace)));
  throw new Error(
    `this file left ${left.length} namespace(s) behind: ${left.map((l) => `${l.namespace} (${l.why})`).join('; ')}. ` +
      `Delete each in afterAll once its controllers are stopped, with deleteNamespace from test/support/fixtures.ts (it strips helmcrew's finalizers).`,
  );
});
