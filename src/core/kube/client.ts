import { CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { KubeconfigError } from './connection-config.js';
import type { KubeClients } from './kube-clients.js';
import { SHARED_ENV } from '../config/env.js';
import { foundKubeconfig } from './kubeconfig-source.js';

// client-node's side of KubeClients: for the bot, the CLI, dev tooling, the demo and tests.
// The controller and notify processes use the slim client (slim-clients.ts) and never import this.
export type { KubeClients } from './kube-clients.js';
export { jsonPatch, mergePatch } from './kube-clients.js';
export { kubeconfigSource, type KubeconfigSource } from './kubeconfig-source.js';

/** client-node's full generated clients (everything KubeClients has, and every other call). */
export interface ClientNodeKubeClients extends KubeClients {
  config: KubeConfig;
  core: CoreV1Api;
  custom: CustomObjectsApi;
  impersonate(user: string): ClientNodeKubeClients;
}

/**
 * KUBECONFIG when set (a path), otherwise in-cluster or ~/.kube/config, as kubectl does. Finding
 * none is a KubeconfigError naming what to set: client-node would otherwise fall back to
 * http://localhost:8080 and fail later with a stack trace about TLS.
 */
export function loadKubeConfig(kubeconfigPath = SHARED_ENV.in(process.env).raw('KUBECONFIG'), env: NodeJS.ProcessEnv = process.env): KubeConfig {
  const config = new KubeConfig();
  const source = foundKubeconfig(kubeconfigPath, env);
  try {
    if (source.kind === 'in-cluster') config.loadFromCluster();
    else config.loadFromFile(source.path);
  } catch (error) {
    const what = source.kind === 'in-cluster' ? "the pod's ServiceAccount" : `${source.path}${kubeconfigPath ? ' (KUBECONFIG)' : ''}`;
    throw new KubeconfigError(`cannot read ${what}: ${(error instanceof Error ? error.message : String(error)).split('\n')[0]}`);
  }
  reuseConnections(config);
  return config;
}

type DispatcherFactory = (cluster: unknown, agentOptions: Record<string, unknown>) => unknown;
type Dispatcher = { destroy?: () => Promise<void> };

/**
 * client-node 2.0.1 makes a new undici Agent, so a new TLS connection and handshake, for every
 * request (docs/performance.md: 40 GETs left 40 connections; one kept-alive connection made each
 * GET 3.5x faster). This keeps one dispatcher per distinct server and credentials. It wraps a
 * method the library keeps private; if a later version renames it, requests work as before.
 */
export function reuseConnections(config: KubeConfig): void {
  const target = config as unknown as { createDispatcher?: DispatcherFactory };
  const original = target.createDispatcher;
  if (typeof original !== 'function') return;
  const cache = new Map<string, Dispatcher>();
  target.createDispatcher = function cachedDispatcher(this: unknown, cluster, agentOptions) {
    const server = (cluster as { server?: string; proxyUrl?: string } | null) ?? {};
    const key = JSON.stringify([
      server.server,
      server.proxyUrl,
      ...['ca', 'cert', 'key', 'pfx', 'rejectUnauthorized', 'servername'].map((k) => keyPart(agentOptions[k])),
    ]);
    let dispatcher = cache.get(key);
    if (dispatcher === undefined) {
      dispatcher = original.call(this, cluster, agentOptions) as Dispatcher;
      // Rotated credentials make a new key; keep the map from growing without bound.
      if (cache.size >= 8) cache.clear();
      cache.set(key, dispatcher);
    }
    return dispatcher;
  };
}

export function makeKubeClients(config: KubeConfig): ClientNodeKubeClients {
  return {
    config,
    core: config.makeApiClient(CoreV1Api),
    custom: config.makeApiClient(CustomObjectsApi),
    impersonate: (user) => makeKubeClients(impersonatingConfig(config, user)),
  };
}

/**
 * A copy of `base` whose current user is impersonated as `user`; it shares base's connections.
 * client-node 2.x sends `Impersonate-User` when the kubeconfig user has `as` (impersonateUser).
 */
export function impersonatingConfig(base: KubeConfig, user: string): KubeConfig {
  const current = base.getCurrentUser();
  if (!current) throw new Error('the kubeconfig has no current user to impersonate from');
  const copy = new KubeConfig();
  copy.loadFromOptions({
    clusters: base.clusters,
    contexts: base.contexts,
    currentContext: base.currentContext,
    users: base.users.map((u) => (u.name === current.name ? { ...u, impersonateUser: user } : u)),
  });
  const shared = base as unknown as { createDispatcher?: (...args: unknown[]) => unknown };
  if (typeof shared.createDispatcher === 'function') {
    (copy as unknown as { createDispatcher: (...args: unknown[]) => unknown }).createDispatcher = (...args) => shared.createDispatcher!(...args);
  }
  return copy;
}

/** One TLS option as part of a cache key: equal options give equal text. */
function keyPart(value: unknown): string {
  if (Buffer.isBuffer(value)) return value.toString('base64');
  if (Array.isArray(value)) return `[${value.map(keyPart).join(',')}]`;
  return typeof value === 'string' || typeof value === 'boolean' || typeof value === 'number' ? String(value) : '';
}
