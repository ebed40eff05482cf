// Runs around every integration test file (vitest.config.ts, setupFiles): after the file's own
// clean-up, any namespace it created must be on its way out. One left standing, or Terminating
// while a HelmRelease keeps helmcrew's finalizer (its controller is stopped: nobody removes it),
// would stay for good and slow every later file (the namespace controller retries it every few
// seconds). The file fails, naming it, and the guard deletes it so the files after it do not pay.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, inject } from 'vitest';
import { loadKubeConfig } from '../../src/core/kube/client.js';
// The harness's files themselves, not its index: a guard around every file loads no more than it needs.
import { createdByFile, namespacesLeftBehind } from '../../src/dev/harness/left-behind.js';
import { readNamespaces, readReleasesWithFinalizers } from '../../src/dev/harness/namespace-state.js';
import { deleteNamespaceWithoutController, markNamespacesOf } from '../../src/dev/harness/namespaces.js';

const kubeConfig = loadKubeConfig(inject('devEnv').kubeconfig);
// Set by the project that runs files side by side (vitest.config.ts): another file's namespaces
// appear meanwhile, so this file judges only those it marked.
const alone = process.env.HELMCREW_TEST_FILES_SIDE_BY_SIDE !== '1';
let before: Set<string> | undefined;
let owner = '';

beforeAll(async () => {
  // A new mark per file: workers are reused (isolate: false), so the module outlives one file.
  owner = `test-${randomBytes(4).toString('hex')}`;
  markNamespacesOf(owner);
  before = new Set((await readNamespaces(kubeConfig)).map((ns) => ns.name));
});

// Registered first, so it runs after every other afterAll of the file (vitest's hooks run as a stack).
afterAll(async () => {
  markNamespacesOf(undefined);
  if (!before) return; // the beforeAll above failed and said so
  const [namespaces, releases] = await Promise.all([readNamespaces(kubeConfig), readReleasesWithFinalizers(kubeConfig)]);
  const left = namespacesLeftBehind(before, namespaces, releases, createdByFile(owner, alone));
  if (left.length === 0) return;
  await Promise.all(left.map((l) => deleteNamespaceWithoutController(kubeConfig, l.namespace)));
  throw new Error(
    `this file left ${left.length} namespace(s) behind: ${left.map((l) => `${l.namespace} (${l.why})`).join('; ')}. ` +
      `Delete each in afterAll once its controllers are stopped, with deleteNamespace from test/support/fixtures.ts (it strips helmcrew's finalizers).`,
  );
});
