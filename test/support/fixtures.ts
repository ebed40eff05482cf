import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, inject } from 'vitest';
import { readControllerConfig } from '../../src/controller/config.js';
import { startControllerWithNotify } from '../../src/cli/compose/controller-with-notify.js';
import type { RunningController } from '../../src/controller/controller.js';
import { loadKubeConfig } from '../../src/core/kube/client.js';
import { createNamespace, deleteNamespaceWithoutController, ensureNamespace, uniqueName } from '../../src/dev/harness/index.js';
import { createLogger, type Logger } from '../../src/core/log.js';
import { createHelmShim, type HelmShim } from './helm-shim.js';
import { CONTROLLER_RIGHTS_SETTINGS } from '../../src/dev/dev-settings.js';

export function testEnv() {
  const env = inject('devEnv');
  return { env, kubeConfig: loadKubeConfig(env.kubeconfig) };
}

// Names and namespaces come from the cluster harness (src/dev/harness), shared with dev and the benchmarks.
export { uniqueName };

/**
 * A file's clean-up, once the controllers that watched the namespace are stopped: strips helmcrew's
 * finalizers (nobody is left to remove them) and asks for the deletion, so the namespace is gone
 * seconds later rather than Terminating for good. The namespace guard (namespace-guard.ts) checks it.
 */
export const deleteNamespace = deleteNamespaceWithoutController;

/** A fresh namespace per test, so tests never see each other's releases. */
export async function freshNamespace(kc: KubeConfig, prefix = 'hc'): Promise<string> {
  return createNamespace(kc, prefix);
}

export interface TestController {
  controller: RunningController;
  helm: HelmShim;
  prefix: string;
  stop: () => Promise<void>;
}

/**
 * The settings every test controller gets unless the test says otherwise: the environment's
 * loopback servers listed, and — for the tests written before the safe defaults (issue 33) —
 * the controller's own rights and references across namespaces, set explicitly. A test that
 * names its own default ServiceAccount or cluster-scope namespaces keeps its own; `safeDefaults`
 * gives a controller none of them, exactly as `helmcrew controller` starts with no settings.
 */
export function testControllerSettings(extraEnv: Record<string, string>, opts: { safeDefaults?: boolean } = {}): Record<string, string> {
  if (opts.safeDefaults) return extraEnv;
  const ownIdentity = extraEnv.HELMCREW_DEFAULT_SERVICE_ACCOUNT !== undefined || extraEnv.HELMCREW_CLUSTER_SCOPE_NAMESPACES !== undefined;
  const { HELMCREW_CLUSTER_SCOPE_NAMESPACES: _everywhere, ...withoutScope } = CONTROLLER_RIGHTS_SETTINGS;
  return { ...(ownIdentity ? withoutScope : CONTROLLER_RIGHTS_SETTINGS), ...extraEnv };
}

export interface TestControllerOptions {
  /** No settings added: the safe defaults, as `helmcrew controller` has with no configuration. */
  safeDefaults?: boolean;
}

/** An in-process controller on the real environment: its own Redis prefix, watching one namespace, helm counted. */
export async function startTestController(
  namespaces: string[],
  extraEnv: Record<string, string> = {},
  log?: Logger,
  opts: TestControllerOptions = {},
): Promise<TestController> {
  const { env } = testEnv();
  const dir = await mkdtemp(join(tmpdir(), 'helmcrew-ctl-'));
  const helm = await createHelmShim(dir, env.helmBin);
  const prefix = uniqueName('hc-test');
  const config = readControllerConfig({
    KUBECONFIG: env.kubeconfig,
    REDIS_URL: env.redisUrl,
    HELM_BIN: helm.bin,
    KUSTOMIZE_BIN: env.kustomizeBin,
    SOPS_BIN: env.sopsBin,
    COSIGN_BIN: env.cosignBin,
    NOTATION_VERIFY_BIN: env.notationVerifyBin,
    WATCH_NAMESPACES: namespaces.join(','),
    HELMCREW_QUEUE_PREFIX: prefix,
    HELMCREW_WORK_DIR: join(dir, 'work'),
    HELMCREW_RESYNC_TICK_MS: '500',
    ...testControllerSettings(extraEnv, opts),
  });
  const controller = await startControllerWithNotify(config, log ?? createLogger('controller', process.env.LOG_LEVEL ?? 'warn'));
  return { controller, helm, prefix, stop: () => controller.stop() };
}

/** A running controller for one test file; stop() and start() let a test restart it. */
export interface ControllerHandle {
  readonly helm: HelmShim;
  /** The controller's Redis key prefix (its queue lives under it). */
  readonly prefix: string;
  readonly controller: RunningController;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The usual shape of an integration test file: a fresh namespace and an in-process controller
 * watching only it, set up before the file's tests and removed after them.
 */
export function namespaceWithController(
  prefix: string,
  extraEnv: Record<string, string> = {},
  log?: Logger,
  opts: TestControllerOptions = {},
): { namespace: string; ctl: ControllerHandle } {
  const namespace = uniqueName(prefix);
  let current: TestController | undefined;
  const running = () => {
    if (!current) throw new Error('the test controller is not running');
    return current;
  };
  const ctl: ControllerHandle = {
    get helm() {
      return running().helm;
    },
    get controller() {
      return running().controller;
    },
    get prefix() {
      return running().prefix;
    },
    async start() {
      current = await startTestController([namespace], extraEnv, log, opts);
    },
    async stop() {
      await current?.stop();
      current = undefined;
    },
  };
  beforeAll(async () => {
    await ensureNamespace(testEnv().kubeConfig, namespace);
    await ctl.start();
  });
  afterAll(async () => {
    await ctl.stop();
    await deleteNamespaceWithoutController(testEnv().kubeConfig, namespace);
  });
  return { namespace, ctl };
}
