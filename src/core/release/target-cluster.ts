import { parse } from 'yaml';
import type { HelmRelease } from '../../api/helmrelease.js';

/**
 * Which cluster a HelmRelease acts on (Flux's spec.kubeConfig): this one, another one through a
 * kubeconfig kept in a Secret, or none because that kubeconfig cannot be used. Pure: the Secret
 * is read by the caller, and nothing here touches the network or the disk.
 */

/** The data keys Flux reads when secretRef.key is not given, in order (a Cluster API `<cluster>-kubeconfig` Secret has `value`). */
export const DEFAULT_KUBECONFIG_KEYS = ['value', 'value.yaml'] as const;

export type TargetCluster =
  | { kind: 'home' }
  | {
      kind: 'remote';
      /** "namespace/name" of the Secret, and its key: how the target is named in messages and logs. */
      secret: string;
      key: string;
      /** The Secret's resourceVersion: a rotated Secret is a new target (clients are cached by it). */
      version: string;
      /** The kubeconfig as written in the Secret (helm gets it as a private file). */
      kubeconfig: string;
      /** The current context's server, for messages (never a credential). */
      server: string;
      /** The current context's user runs an exec plugin (allowed by the operator): its credentials are made by a program. */
      exec?: ExecPlugin;
    }
  | { kind: 'refused'; reason: 'KubeConfigInvalid' | 'KubeConfigRefused'; message: string };

export interface ExecPlugin {
  command: string;
  args: string[];
  env: Record<string, string>;
  apiVersion: string;
}

/** What the operator lets a target's kubeconfig do on the controller's machine. */
export interface TargetPolicy {
  /** Exec plugins and file paths (certificates, keys, CAs, token files): both run or read something of the controller's. */
  allowExec: boolean;
}

/** The Secret as read (data base64-encoded, as the API returns it); undefined when there is none. */
export interface KubeconfigSecret {
  resourceVersion?: string;
  data?: Record<string, string>;
}

type Entry = Record<string, unknown>;

/** Fields of a kubeconfig user that name a file on the controller's disk. */
const USER_FILE_FIELDS = ['client-certificate', 'client-key', 'tokenFile'] as const;
const CLUSTER_FILE_FIELDS = ['certificate-authority'] as const;

/** Pure: the Secret a HelmRelease names for its kubeconfig, if any. */
export function kubeconfigSecretRef(release: Pick<HelmRelease, 'spec'>): { name: string; key?: string } | undefined {
  return release.spec.kubeConfig?.secretRef;
}

/** Pure: where `release` acts, given the Secret its spec.kubeConfig names (undefined: not found) and the operator's policy. */
export function targetFor(release: Pick<HelmRelease, 'spec' | 'metadata'>, secret: KubeconfigSecret | undefined, policy: TargetPolicy): TargetCluster {
  const ref = kubeconfigSecretRef(release);
  if (!ref) return { kind: 'home' };
  const where = `Secret ${release.metadata.namespace}/${ref.name}`;
  const invalid = (message: string): TargetCluster => ({ kind: 'refused', reason: 'KubeConfigInvalid', message });
  if (!secret) return invalid(`spec.kubeConfig: ${where} not found`);
  const keys = ref.key ? [ref.key] : DEFAULT_KUBECONFIG_KEYS;
  const key = keys.find((k) => secret.data?.[k] !== undefined);
  if (!key) return invalid(`spec.kubeConfig: ${where} has no key ${keys.map((k) => `"${k}"`).join(' or ')}`);
  const kubeconfig = Buffer.from(secret.data![key]!, 'base64').toString('utf8');
  const inspected = inspectKubeconfig(kubeconfig, policy);
  const named = `spec.kubeConfig: ${where} key "${key}"`;
  if ('refused' in inspected) return { kind: 'refused', reason: 'KubeConfigRefused', message: `${named}: ${inspected.refused}` };
  if ('invalid' in inspected) return invalid(`${named}: ${inspected.invalid}`);
  return {
    kind: 'remote',
    secret: `${release.metadata.namespace}/${ref.name}`,
    key,
    version: secret.resourceVersion ?? '',
    kubeconfig,
    server: inspected.server,
    ...(inspected.exec ? { exec: inspected.exec } : {}),
  };
}

/** Pure: what the current context of a kubeconfig would make the controller do, checked against the policy. */
export function inspectKubeconfig(text: string, policy: TargetPolicy): { server: string; exec?: ExecPlugin } | { invalid: string } | { refused: string } {
  let doc: Entry;
  try {
    doc = (parse(text) ?? {}) as Entry;
  } catch {
    // The parser's message may quote the text, which holds credentials.
    return { invalid: 'not a YAML kubeconfig' };
  }
  if (typeof doc !== 'object' || Array.isArray(doc)) return { invalid: 'not a YAML kubeconfig' };
  const contextName = doc['current-context'];
  if (typeof contextName !== 'string' || !contextName) return { invalid: 'no current-context' };
  const context = named(doc, 'contexts', 'context', contextName);
  if (!context) return { invalid: `no context named "${contextName}"` };
  const clusterName = typeof context.cluster === 'string' ? context.cluster : '';
  const cluster = named(doc, 'clusters', 'cluster', clusterName);
  if (!cluster) return { invalid: `no cluster named "${clusterName}"` };
  const server = cluster.server;
  if (typeof server !== 'string' || !/^https?:\/\/[^\s]+$/.test(server)) return { invalid: `cluster "${clusterName}" has no http(s) server` };
  const userName = typeof context.user === 'string' ? context.user : '';
  const user = userName ? named(doc, 'users', 'user', userName) : {};
  if (!user) return { invalid: `no user named "${userName}"` };
  if (present(user['auth-provider'])) {
    return { refused: `user "${userName}" uses an auth-provider, which helmcrew does not run; use a token or a client certificate` };
  }
  const files = [
    ...USER_FILE_FIELDS.filter((f) => present(user[f])).map((f) => `user "${userName}" ${f}`),
    ...CLUSTER_FILE_FIELDS.filter((f) => present(cluster[f])).map((f) => `cluster "${clusterName}" ${f}`),
  ];
  const exec = present(user.exec) ? execPlugin(user.exec as Entry) : undefined;
  if (!policy.allowExec) {
    if (exec !== undefined) {
      return {
        refused: `user "${userName}" runs an exec plugin, which would run a program in the controller; embed a token or client certificate, or have the operator set HELMCREW_ALLOW_KUBECONFIG_EXEC=true`,
      };
    }
    if (files.length > 0) {
      return {
        refused: `${files.join(', ')} names a file on the controller's disk; embed the data (…-data fields, token), or have the operator set HELMCREW_ALLOW_KUBECONFIG_EXEC=true`,
      };
    }
  }
  if (exec && 'invalid' in exec) return { invalid: `user "${userName}" exec: ${exec.invalid}` };
  return { server: server.replace(/\/+$/, ''), ...(exec ? { exec } : {}) };
}

function execPlugin(entry: Entry): ExecPlugin | { invalid: string } {
  const command = entry.command;
  if (typeof command !== 'string' || !command) return { invalid: 'no command' };
  const args = Array.isArray(entry.args) ? entry.args.filter((a): a is string => typeof a === 'string') : [];
  const env: Record<string, string> = {};
  for (const pair of Array.isArray(entry.env) ? (entry.env as Entry[]) : []) {
    if (typeof pair?.name === 'string' && typeof pair.value === 'string') env[pair.name] = pair.value;
  }
  const apiVersion = typeof entry.apiVersion === 'string' ? entry.apiVersion : 'client.authentication.k8s.io/v1';
  return { command, args, env, apiVersion };
}

function present(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '';
}

function named(doc: Entry, list: string, field: string, name: string): Entry | undefined {
  const entries = Array.isArray(doc[list]) ? (doc[list] as Entry[]) : [];
  const found = entries.find((entry) => entry?.name === name);
  return found ? ((found[field] ?? {}) as Entry) : undefined;
}

/** Pure: how a target is named in status, Events and notifications ("cluster <secret name> (<server>)"). */
export function describeTarget(target: Extract<TargetCluster, { kind: 'remote' }>): string {
  return `cluster ${target.secret.split('/')[1]} (${target.server})`;
}
