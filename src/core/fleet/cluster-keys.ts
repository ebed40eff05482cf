/**
 * Every Redis key and queue name helmcrew uses, from one place (pure). A fleet shares one Redis:
 * each cluster's controller, notify and bot work in the cluster's own keyspace, so two clusters
 * never take each other's work while two replicas of one cluster share theirs.
 *
 * A named cluster's keyspace is a BullMQ hash tag, `{helmcrew:prod-eu}`: on Redis Cluster every key
 * of a queue must hash to one slot, and the tag puts all of one cluster's keys in one slot; it is
 * also the one ACL key pattern (`~{helmcrew:prod-eu}:*`) that gives an agent its cluster's keys and
 * no other's (docs/redis.md). No cluster name (`default`) keeps today's keyspace, the queue
 * prefix itself, so a single-cluster install changes nothing.
 */

/** The cluster name when HELMCREW_CLUSTER_NAME is unset. */
export const DEFAULT_CLUSTER = 'default';

/** BullMQ queues, each under a cluster's keyspace (BullMQ's keys: `<keyspace>:<queue>:…`). */
export const QUEUE_NAMES = {
  reconcile: 'reconcile',
  preview: 'preview',
  notify: 'notify',
  delivery: 'notify-delivery',
  command: 'command',
} as const;

/** helmcrew's own keys in a cluster's keyspace; those with an id take it as the key's last part. */
const KEY_SUFFIXES = {
  /** controller: sorted set, release key → time of its last check. */
  checked: 'checked',
  /** controller: hash, replica id → heartbeat record (core/fleet/heartbeat.ts). */
  agents: 'agents',
  /** controller: one key per command nonce, until the command expires (replay protection). */
  commandNonce: 'command:nonce',
  /** controller: sorted set per node, lease token → expiry: helm processes running on that node (controller/helm/node-helm-slots.ts). */
  nodeHelmSlots: 'node-helm-slots',
  /** notify: a delivery's mailbox, a release's unrouted mark, a channel's rate bucket. */
  notifyMailbox: 'notify:mailbox',
  notifyUnrouted: 'notify:unrouted',
  notifyRate: 'notify:rate',
  /** bot: a plan waiting for its confirmation, a freeze's report message. */
  botPlan: 'bot:plan',
  botFreeze: 'bot:freeze',
  /** controller and bot: hash, proposal id → record (core/proposals/proposal-store.ts). */
  proposals: 'proposals',
  /** assistants (MCP): a token's record by the SHA-256 of the token, its id → that hash, a token's per-minute call count. */
  mcpToken: 'mcp:token',
  mcpTokenId: 'mcp:token-id',
  mcpRate: 'mcp:rate',
  /**
   * assistants' OAuth (web/oauth): a registered client, an authorization waiting for consent, a one-time code by its SHA-256, a used
   * code → the token it issued; a refresh token by its SHA-256, a used one → its family, a family (one consent's tokens, hash).
   */
  mcpOauthClient: 'mcp:oauth:client',
  mcpOauthRequest: 'mcp:oauth:request',
  mcpOauthCode: 'mcp:oauth:code',
  mcpOauthCodeUsed: 'mcp:oauth:code-used',
  mcpOauthRefresh: 'mcp:oauth:refresh',
  mcpOauthRefreshUsed: 'mcp:oauth:refresh-used',
  mcpOauthFamily: 'mcp:oauth:family',
} as const;

export type KeyKind = keyof typeof KEY_SUFFIXES;

/** A DNS label (as a Kubernetes name): safe in a hash tag, an ACL pattern, a Lease name and a log line. */
const CLUSTER_NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
/** Characters an ACL key pattern (a glob) would read as wildcards; `{` `}` `:` would break the hash tag. */
const UNSAFE_IN_PREFIX = /[*?[\]\\{}:\s]/;

export type ClusterNameCheck = { ok: true; name: string } | { ok: false; message: string };

/** HELMCREW_CLUSTER_NAME as set (unset or blank: `default`), or why it cannot name a cluster. */
export function parseClusterName(raw: string | undefined): ClusterNameCheck {
  const name = raw?.trim() ?? '';
  if (name === '') return { ok: true, name: DEFAULT_CLUSTER };
  if (!CLUSTER_NAME.test(name)) {
    return {
      ok: false,
      message: `HELMCREW_CLUSTER_NAME must be a DNS label (lower-case letters, digits and '-', at most 63, starting and ending with a letter or digit), got "${name}"`,
    };
  }
  return { ok: true, name };
}

/** The queue prefix without a hash tag's braces: `{helmcrew}` and `helmcrew` both give `helmcrew`. */
export function fleetBase(queuePrefix: string): string {
  return /^\{[^{}]+\}$/.test(queuePrefix) ? queuePrefix.slice(1, -1) : queuePrefix;
}

/** Why a queue prefix cannot hold named clusters' keyspaces, or undefined when it can. */
export function prefixProblem(queuePrefix: string): string | undefined {
  const base = fleetBase(queuePrefix);
  if (base === '' || UNSAFE_IN_PREFIX.test(base)) {
    return `HELMCREW_QUEUE_PREFIX must not contain spaces or any of * ? [ ] \\ { } : when HELMCREW_CLUSTER_NAME is set (it becomes a hash tag and an ACL key pattern), got "${queuePrefix}"`;
  }
  return undefined;
}

/**
 * A key's hash tag as Redis Cluster reads it: what lies between the first `{` and the first `}`
 * after it, when that is not empty; only that part is hashed to the key's slot.
 */
export function hashTag(key: string): string | undefined {
  const open = key.indexOf('{');
  if (open === -1) return undefined;
  const close = key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : undefined;
}

/**
 * Why a keyspace cannot be used on a Redis Cluster, or undefined when it can: BullMQ's scripts and
 * notify's touch several keys at once, which a cluster allows only within one slot, so every key
 * must carry the keyspace's hash tag. A named cluster's keyspace always has one; the `default`
 * keyspace is the queue prefix as set.
 */
export function clusterSlotProblem(keyspace: string): string | undefined {
  if (hashTag(keyspace) !== undefined) return undefined;
  const suggestion = /[{}]/.test(keyspace) ? 'a hash tag' : `{${keyspace}}`;
  return `HELMCREW_QUEUE_PREFIX "${keyspace}" has no hash tag: on a Redis Cluster every key of a queue must hash to one slot; set HELMCREW_QUEUE_PREFIX=${suggestion} (braces included, the same for every part) or name this cluster with HELMCREW_CLUSTER_NAME`;
}

/** The cluster's keyspace: the queue prefix for `default`, else the hash tag `{<base>:<cluster>}`. */
export function clusterKeyspace(queuePrefix: string, cluster: string): string {
  return cluster === DEFAULT_CLUSTER ? queuePrefix : `{${fleetBase(queuePrefix)}:${cluster}}`;
}

/** One of helmcrew's own keys in a keyspace: `<keyspace>:<suffix>[:<id>]`. */
export function clusterKey(keyspace: string, kind: KeyKind, id?: string): string {
  const key = `${keyspace}:${KEY_SUFFIXES[kind]}`;
  return id === undefined ? key : `${key}:${id}`;
}

/**
 * The fleet's own keys, outside every named cluster's keyspace, under their own hash tag
 * (`{helmcrew}:fleet`): written by the hub (the fleet's bot and notify); an agent may only SADD its
 * name to the index and read the fleet freezes (docs/redis.md).
 */
export function fleetKeyspace(queuePrefix: string): string {
  return `{${fleetBase(queuePrefix)}}:fleet`;
}

/**
 * The set of cluster names that ever announced themselves, so a reader knows whose keyspace to look
 * in. An agent's ACL lets it only SADD here, so an agent can add a name but hide none and read no
 * other cluster's record.
 */
export function fleetIndexKey(queuePrefix: string): string {
  return `${fleetKeyspace(queuePrefix)}:clusters`;
}

/** The fleet's freezes (`/release freeze cluster:prod-*`): a hash, name → record (core/fleet/fleet-freezes.ts). Read by every agent, written by the hub only. */
export function fleetFreezesKey(queuePrefix: string): string {
  return `${fleetKeyspace(queuePrefix)}:freezes`;
}

/** The ACL key pattern that covers exactly a cluster's keyspace (every queue and key above). */
export function clusterAclPattern(queuePrefix: string, cluster: string): string {
  return `${clusterKeyspace(queuePrefix, cluster)}:*`;
}
