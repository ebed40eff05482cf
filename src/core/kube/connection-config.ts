import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { parse } from 'yaml';
import { ConfigError, SHARED_ENV } from '../config/env.js';
import { KUBE_ENV } from './kube-env.js';

/**
 * Where the API server is and how to prove who we are: what the slim client needs from a
 * kubeconfig or from the in-cluster ServiceAccount. No client-node here (its import costs
 * ~85 MiB of RSS; docs/field-notes.md).
 */
export interface ConnectionConfig {
  /** https://host:port (http:// works too, without TLS). */
  server: string;
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  insecureSkipTlsVerify: boolean;
  tlsServerName?: string;
  /** A fixed bearer token. */
  token?: string;
  /** A bearer token read from this file, and read again when it rotates. */
  tokenFile?: string;
  /** The kubeconfig user's `as`: every request impersonates this user. */
  impersonate?: string;
  /** Give up connecting after this long (a remote target cluster: an unreachable one must not hold a worker). Default: the request's timeout. */
  connectTimeoutMs?: number;
}

/**
 * A kubeconfig the slim client cannot use; the message names the file, the entry and the field.
 * A ConfigError: the command prints the message alone and exits 2, as for a bad variable.
 */
export class KubeconfigError extends ConfigError {
  override name = 'KubeconfigError';
}

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/**
 * Authentication the slim client does not implement. Refused at start-up with the field's name
 * rather than half-supported: helmcrew runs in-cluster (ServiceAccount token) or with a
 * certificate or token kubeconfig; an exec plugin would mean running arbitrary commands.
 */
const UNSUPPORTED_USER_FIELDS = ['exec', 'auth-provider', 'username', 'password', 'as-groups', 'as-uid', 'as-user-extra'] as const;
const UNSUPPORTED_CLUSTER_FIELDS = ['proxy-url'] as const;

/** KUBECONFIG when set (one path), else ~/.kube/config when it exists, else in-cluster, as kubectl does. */
export function loadConnectionConfig(kubeconfigPath = SHARED_ENV.in(process.env).raw('KUBECONFIG'), env: NodeJS.ProcessEnv = process.env): ConnectionConfig {
  if (kubeconfigPath) return fromKubeconfigFile(kubeconfigPath);
  const kube = KUBE_ENV.in(env);
  const home = join(kube.raw('HOME') ?? homedir(), '.kube', 'config');
  if (existsSync(home)) return fromKubeconfigFile(home);
  if (kube.raw('KUBERNETES_SERVICE_HOST')) return inCluster(env);
  throw new KubeconfigError('no kubeconfig: set KUBECONFIG, create ~/.kube/config, or run in a cluster (KUBERNETES_SERVICE_HOST)');
}

/** The Pod's ServiceAccount: token and CA from the mounted directory, the server from the service env. */
export function inCluster(env: NodeJS.ProcessEnv = process.env, dir = SERVICE_ACCOUNT_DIR): ConnectionConfig {
  const kube = KUBE_ENV.in(env);
  const host = kube.raw('KUBERNETES_SERVICE_HOST');
  const port = kube.raw('KUBERNETES_SERVICE_PORT') ?? KUBE_ENV.fallback('KUBERNETES_SERVICE_PORT');
  if (!host) throw new KubeconfigError('in-cluster: KUBERNETES_SERVICE_HOST is not set');
  const tokenFile = join(dir, 'token');
  if (!existsSync(tokenFile)) throw new KubeconfigError(`in-cluster: no ServiceAccount token at ${tokenFile}`);
  return {
    server: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
    ca: readFileSync(join(dir, 'ca.crt')),
    insecureSkipTlsVerify: false,
    tokenFile,
  };
}

export function fromKubeconfigFile(path: string): ConnectionConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new KubeconfigError(`cannot read kubeconfig ${path}: ${(error as Error).message}`);
  }
  return fromKubeconfig(text, path);
}

type Entry = Record<string, unknown>;

/** The current context's cluster and user; relative file paths are relative to the kubeconfig's directory. */
export function fromKubeconfig(text: string, path = 'kubeconfig'): ConnectionConfig {
  const doc = (parse(text) ?? {}) as Entry;
  const base = dirname(path);
  const contextName = doc['current-context'];
  if (typeof contextName !== 'string' || !contextName) throw new KubeconfigError(`${path}: no current-context`);
  const context = named(doc, 'contexts', 'context', contextName, path);
  const cluster = named(doc, 'clusters', 'cluster', typeof context.cluster === 'string' ? context.cluster : '', path);
  const userName = typeof context.user === 'string' ? context.user : '';
  const user = userName ? named(doc, 'users', 'user', userName, path) : {};
  for (const field of UNSUPPORTED_USER_FIELDS) {
    if (user[field] !== undefined && user[field] !== '') {
      throw new KubeconfigError(`${path}: user "${userName}" uses "${field}", which helmcrew does not support; use a client certificate, token or tokenFile`);
    }
  }
  for (const field of UNSUPPORTED_CLUSTER_FIELDS) {
    if (cluster[field] !== undefined && cluster[field] !== '')
      throw new KubeconfigError(`${path}: cluster "${String(context.cluster)}" uses "${field}", which helmcrew does not support`);
  }
  const server = cluster.server;
  if (typeof server !== 'string' || !server) throw new KubeconfigError(`${path}: cluster "${String(context.cluster)}" has no server`);
  const file = (value: unknown) => (typeof value === 'string' && value ? (isAbsolute(value) ? value : join(base, value)) : undefined);
  return {
    server: server.replace(/\/+$/, ''),
    ca: bytes(cluster['certificate-authority-data'], file(cluster['certificate-authority'])),
    insecureSkipTlsVerify: cluster['insecure-skip-tls-verify'] === true,
    tlsServerName: str(cluster['tls-server-name']),
    cert: bytes(user['client-certificate-data'], file(user['client-certificate'])),
    key: bytes(user['client-key-data'], file(user['client-key'])),
    token: str(user.token),
    tokenFile: file(user.tokenFile),
    impersonate: str(user.as),
  };
}

function named(doc: Entry, list: string, field: string, name: string, path: string): Entry {
  const entries = Array.isArray(doc[list]) ? (doc[list] as Entry[]) : [];
  const found = entries.find((entry) => entry?.name === name);
  if (!found) throw new KubeconfigError(`${path}: no ${field} named "${name}"`);
  return (found[field] ?? {}) as Entry;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value ? value : undefined;
}

function bytes(data: unknown, file: string | undefined): Buffer | undefined {
  if (typeof data === 'string' && data) return Buffer.from(data, 'base64');
  return file ? readFileSync(file) : undefined;
}
