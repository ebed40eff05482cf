/**
 * Where the Slack provider keeps its message references: in the API server, not in Redis, so
 * updates continue on the same message after notify restarts and after Redis is wiped.
 *
 * One ConfigMap per HelmRelease namespace (`helmcrew-slack-messages`), one data key per
 * (operation, channel). Writes are JSON merge patches of that one key, so replicas writing
 * different operations never conflict. The map is bounded: past `maxEntries` the operations
 * updated longest ago are evicted (their messages stay in Slack; only later edits would start
 * a new message).
 */
import { createHash } from 'node:crypto';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { mergePatch, type KubeClients } from '../../../core/kube/kube-clients.js';
import { isConflict, isNotFound } from '../../../core/kube/errors.js';
import type { OperationState } from './operation-state.js';

import { FLEET_SLACK_MESSAGES_CONFIGMAP, SLACK_MESSAGES_CONFIGMAP } from '../../../core/links/slack-thread.js';
export { FLEET_SLACK_MESSAGES_CONFIGMAP, SLACK_MESSAGES_CONFIGMAP };
export const DEFAULT_MAX_ENTRIES = 100;

/** The provider's memory of its messages; the ConfigMap store is the real one. */
export interface SlackMessageStore {
  load(namespace: string, operationId: string, channelRef: string): Promise<OperationState | undefined>;
  save(namespace: string, state: OperationState): Promise<void>;
}

/** ConfigMap keys allow [-._a-zA-Z0-9]; operation ids and channel names need not fit, so a digest. */
export function entryKey(operationId: string, channelRef: string): string {
  return `op-${createHash('sha256').update(`${operationId}\n${channelRef}`).digest('hex').slice(0, 32)}`;
}

/** The keys to drop so that at most `max` entries remain: the least recently updated first. */
export function keysToEvict(data: Record<string, string>, max: number): string[] {
  const entries = Object.entries(data);
  if (entries.length <= max) return [];
  const updatedAt = (raw: string) => {
    const parsed = parseState(raw);
    return parsed ? Date.parse(parsed.updatedAt) || 0 : 0;
  };
  return entries
    .map(([key, raw]) => ({ key, at: updatedAt(raw) }))
    .sort((a, b) => a.at - b.at || a.key.localeCompare(b.key))
    .slice(0, entries.length - max)
    .map((e) => e.key);
}

export function parseState(raw: string | undefined): OperationState | undefined {
  if (!raw) return undefined;
  try {
    const value = JSON.parse(raw) as Partial<OperationState>;
    if (typeof value.ts !== 'string' || typeof value.channelId !== 'string' || !Array.isArray(value.timeline) || !Array.isArray(value.delivered))
      return undefined;
    return { ...value, version: typeof value.version === 'number' ? value.version : 0 } as OperationState;
  } catch {
    return undefined;
  }
}

export class ConfigMapMessageStore implements SlackMessageStore {
  constructor(
    private readonly kube: KubeClients,
    private readonly maxEntries = DEFAULT_MAX_ENTRIES,
    private readonly name = SLACK_MESSAGES_CONFIGMAP,
  ) {}

  async load(namespace: string, operationId: string, channelRef: string): Promise<OperationState | undefined> {
    try {
      const map = await this.kube.core.readNamespacedConfigMap({ name: this.name, namespace });
      const state = parseState(map.data?.[entryKey(operationId, channelRef)]);
      // A digest collision or a hand-edited entry must not send updates to another operation's message.
      return state && state.operationId === operationId && state.channelRef === channelRef ? state : undefined;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async save(namespace: string, state: OperationState): Promise<void> {
    const key = entryKey(state.operationId, state.channelRef);
    const value = JSON.stringify(state);
    const map = await this.patchEntries(namespace, { [key]: value });
    const evict = keysToEvict(map.data ?? {}, this.maxEntries).filter((k) => k !== key);
    if (evict.length > 0) await this.patchEntries(namespace, Object.fromEntries(evict.map((k) => [k, null])));
  }

  /** Merge-patches data keys (null deletes one), creating the ConfigMap the first time. */
  private async patchEntries(namespace: string, entries: Record<string, string | null>): Promise<V1ConfigMap> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.kube.core.patchNamespacedConfigMap({ name: this.name, namespace, body: { data: entries } }, mergePatch);
      } catch (error) {
        if (!isNotFound(error) || attempt > 0) throw error;
      }
      try {
        const data = Object.fromEntries(Object.entries(entries).filter((e): e is [string, string] => e[1] !== null));
        return await this.kube.core.createNamespacedConfigMap({
          namespace,
          body: {
            metadata: { name: this.name, namespace, labels: { 'app.kubernetes.io/managed-by': 'helmcrew', 'helmcrew.dev/purpose': 'slack-messages' } },
            data,
          },
        });
      } catch (error) {
        // Another replica created it first: patch it on the next turn.
        if (!isConflict(error)) throw error;
      }
    }
  }
}

/** Larger than one namespace's map: it holds a whole fleet's operations in flight (an entry is ~1 KiB, a ConfigMap at most 1 MiB). */
export const FLEET_MAX_ENTRIES = 400;

/**
 * Keeps every entry in one namespace, whatever the release's namespace (a fleet notify: those are
 * other clusters'); each entry names its cluster (OperationState.cluster), so the web links a
 * release's thread and not a same-named release's of another cluster.
 */
export class FixedNamespaceStore implements SlackMessageStore {
  constructor(
    private readonly inner: SlackMessageStore,
    private readonly namespace: string,
  ) {}

  load(_namespace: string, operationId: string, channelRef: string): Promise<OperationState | undefined> {
    return this.inner.load(this.namespace, operationId, channelRef);
  }

  save(_namespace: string, state: OperationState): Promise<void> {
    return this.inner.save(this.namespace, state);
  }
}

/** A store in memory, for processes without a cluster (and a cache in front of the real one). */
export class MemoryMessageStore implements SlackMessageStore {
  private readonly entries = new Map<string, OperationState>();
  constructor(private readonly maxEntries = 1000) {}

  async load(namespace: string, operationId: string, channelRef: string): Promise<OperationState | undefined> {
    return this.entries.get(`${namespace}/${entryKey(operationId, channelRef)}`);
  }

  async save(namespace: string, state: OperationState): Promise<void> {
    const key = `${namespace}/${entryKey(state.operationId, state.channelRef)}`;
    this.entries.delete(key);
    this.entries.set(key, state);
    // Map iteration is insertion order: the first key is the least recently saved.
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }
}
