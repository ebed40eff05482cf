import { parse, stringify } from 'yaml';
import type { Logger } from '../../core/log.js';
import { fromKubeconfig, type ConnectionConfig } from '../../core/kube/connection-config.js';
import { KubeConnection, KubeRest } from '../../core/kube/rest-client.js';
import { slimKubeClients } from '../../core/kube/slim-clients.js';
import { IdentityClients } from '../../core/kube/identity.js';
import type { TargetPolicy } from '../../core/release/target-cluster.js';
import { describeTarget } from '../../core/release/target-cluster.js';
import { KubeconfigUnusable, type ClusterPorts, type RemoteTarget, type TargetClusters } from '../reconcile/ports/context.js';
import { runExecPlugin, type ExecCredential } from './exec-credential.js';

/** What the controller makes a cluster's ports from, once it has a connection to it (controller-context.ts). */
export type ClusterPortsFactory = (rest: KubeRest, kube: IdentityClients, kubeconfig: string) => Omit<ClusterPorts, 'name' | 'identities' | 'retryAfterMs'>;

export interface RemoteClustersOptions {
  policy: TargetPolicy;
  /** A target that does not accept a connection within this long is unreachable (no worker waits longer). */
  connectTimeoutMs: number;
  retryAfterMs: number;
  build: ClusterPortsFactory;
  log: Logger;
  /** Runs a kubeconfig's exec plugin (tests pass their own). */
  exec?: typeof runExecPlugin;
  now?: () => number;
}

interface Entry {
  version: string;
  ports: Promise<ClusterPorts>;
  /** When an exec plugin's credential runs out: the next pass makes a new one. */
  expiresAt?: number;
  connection?: KubeConnection;
}

/** Bounds the cache: one entry per kubeconfig Secret in use. */
const MAX_TARGETS = 1000;
/** An exec credential is renewed this long before it expires, so no request carries a dead one. */
const RENEW_BEFORE_MS = 60_000;

/**
 * The ports of each remote target, kept per kubeconfig Secret and rebuilt when its
 * resourceVersion changes: a rotated Secret (another server, new credentials) is used by the next
 * pass, without a restart. Connections are pooled per target, like the controller's own.
 */
export class RemoteClusters implements TargetClusters {
  readonly policy: TargetPolicy;
  readonly retryAfterMs: number;
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly opts: RemoteClustersOptions) {
    this.policy = opts.policy;
    this.retryAfterMs = opts.retryAfterMs;
  }

  portsFor(target: RemoteTarget): Promise<ClusterPorts> {
    const now = (this.opts.now ?? Date.now)();
    const current = this.entries.get(target.secret);
    if (current && current.version === target.version && (current.expiresAt === undefined || current.expiresAt - RENEW_BEFORE_MS > now)) return current.ports;
    // The old connection's sockets go: nothing uses the old credentials any more.
    current?.connection?.resetConnections();
    if (!current && this.entries.size >= MAX_TARGETS) this.entries.clear();
    const entry = { version: target.version } as Entry;
    entry.ports = this.build(target, entry);
    // A build that failed (a plugin that did not answer) is tried again by the next pass.
    void entry.ports.catch(() => this.entries.get(target.secret) === entry && this.entries.delete(target.secret));
    this.entries.set(target.secret, entry);
    if (!current || current.version !== target.version) this.opts.log.info({ secret: target.secret, server: target.server }, 'connecting to a target cluster');
    return entry.ports;
  }

  private async build(target: RemoteTarget, entry: Entry): Promise<ClusterPorts> {
    const config = await this.connectionConfig(target, entry);
    const connection = new KubeConnection({ ...config, connectTimeoutMs: this.opts.connectTimeoutMs });
    entry.connection = connection;
    const rest = new KubeRest(connection);
    const identities = new IdentityClients(slimKubeClients(rest));
    return { name: describeTarget(target), retryAfterMs: this.retryAfterMs, identities, ...this.opts.build(rest, identities, target.kubeconfig) };
  }

  private async connectionConfig(target: RemoteTarget, entry: Entry): Promise<ConnectionConfig> {
    const label = `spec.kubeConfig: Secret ${target.secret} key "${target.key}"`;
    let config: ConnectionConfig;
    try {
      config = fromKubeconfig(target.exec ? withoutExec(target.kubeconfig) : target.kubeconfig, label);
    } catch (error) {
      // Names the field or file, never the kubeconfig's content.
      throw new KubeconfigUnusable(error instanceof Error ? error.message : String(error));
    }
    if (!target.exec) return config;
    let credential: ExecCredential;
    try {
      credential = await (this.opts.exec ?? runExecPlugin)(target.exec);
    } catch (error) {
      throw new KubeconfigUnusable(`${label}: ${error instanceof Error ? error.message : String(error)}`);
    }
    entry.expiresAt = credential.expiresAt;
    return { ...config, ...(credential.token ? { token: credential.token } : {}), ...(credential.cert ? { cert: credential.cert, key: credential.key } : {}) };
  }
}

/** The kubeconfig without its current user's exec entry: the slim client takes the plugin's credential instead. */
function withoutExec(text: string): string {
  const doc = parse(text) as {
    'current-context'?: string;
    contexts?: Array<{ name?: string; context?: { user?: string } }>;
    users?: Array<{ name?: string; user?: Record<string, unknown> }>;
  };
  const userName = doc.contexts?.find((c) => c.name === doc['current-context'])?.context?.user;
  const user = doc.users?.find((u) => u.name === userName)?.user;
  if (user) delete user.exec;
  return stringify(doc);
}
