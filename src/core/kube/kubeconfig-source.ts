import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { KubeconfigError, SERVICE_ACCOUNT_DIR } from './connection-config.js';
import { KUBE_ENV } from './kube-env.js';

// Apart from client.ts, which loads @kubernetes/client-node: `helmcrew release` says which
// kubeconfig is missing before it loads the client.

export type KubeconfigSource = { kind: 'file'; path: string } | { kind: 'in-cluster' } | { kind: 'none'; defaultPath: string };

/** Where the kubeconfig comes from, in kubectl's order: KUBECONFIG, ~/.kube/config, the pod's ServiceAccount. */
export function kubeconfigSource(kubeconfigPath: string | undefined, env: NodeJS.ProcessEnv, exists: (path: string) => boolean = existsSync): KubeconfigSource {
  if (kubeconfigPath) {
    const first = kubeconfigPath.split(delimiter).find((path) => path && exists(path));
    if (!first) throw new KubeconfigError(`KUBECONFIG names ${kubeconfigPath}, which does not exist: set KUBECONFIG to your cluster's kubeconfig file`);
    return { kind: 'file', path: first };
  }
  const kube = KUBE_ENV.in(env);
  const defaultPath = join(kube.raw('HOME') || homedir(), '.kube', 'config');
  if (exists(defaultPath)) return { kind: 'file', path: defaultPath };
  if (kube.raw('KUBERNETES_SERVICE_HOST') && exists(join(SERVICE_ACCOUNT_DIR, 'token'))) return { kind: 'in-cluster' };
  return { kind: 'none', defaultPath };
}

/**
 * The kubeconfig to read, or a KubeconfigError naming what to set: client-node would otherwise
 * fall back to http://localhost:8080 and fail later with a stack trace about TLS.
 */
export function foundKubeconfig(kubeconfigPath: string | undefined, env: NodeJS.ProcessEnv): Exclude<KubeconfigSource, { kind: 'none' }> {
  const source = kubeconfigSource(kubeconfigPath, env);
  if (source.kind === 'none') {
    throw new KubeconfigError(`no kubeconfig found: set KUBECONFIG to your cluster's kubeconfig file (or create ${source.defaultPath})`);
  }
  return source;
}
