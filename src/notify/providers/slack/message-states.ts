/**
 * Where the Slack provider keeps each operation's message state: the store shared by replicas (the
 * API server, message-store.ts) and this process's newer copy of what it changed but could not save
 * yet. Reading takes the newer of the two; writing goes to both, and a failed write is retried by
 * the delivery that comes back.
 */
import type { ReleaseNotification } from '../../contract.js';
import { RetryableDeliveryError } from '../../contract.js';
import type { Logger } from '../../../core/log.js';
import { MemoryMessageStore, type SlackMessageStore } from './message-store.js';
import { joinsResume, resumeOperationOf, type OperationState } from './operation-state.js';

export class MessageStates {
  /** States this process wrote, newest; the store stays the truth shared by replicas. */
  private readonly cache = new MemoryMessageStore(1000);
  /** Keys whose latest state has not reached the store yet. */
  private readonly unsaved = new Set<string>();

  constructor(
    private readonly store: SlackMessageStore,
    private readonly log: Logger,
  ) {}

  /**
   * The operation's message state; for an install or upgrade without a message of its own, the
   * Resumed message it follows (continued in place, `joined` set), so the resume shows the upgrade.
   */
  async stateFor(n: ReleaseNotification, channelRef: string, key: string): Promise<OperationState | undefined> {
    const own = await this.currentState(n, n.operationId, channelRef, key);
    if (own) return own;
    const resumeOp = resumeOperationOf(n.operationId);
    const resumed = resumeOp ? await this.currentState(n, resumeOp, channelRef, key) : undefined;
    return resumed && joinsResume(resumed, n) ? { ...resumed, joined: n.operationId } : undefined;
  }

  /** Whether the latest state under `key` has not reached the store yet. */
  isUnsaved(key: string): boolean {
    return this.unsaved.has(key);
  }

  /** Keeps the state in this process only (the delivery's final persist saves it). */
  remember(namespace: string, state: OperationState): void {
    void this.cache.save(namespace, state);
  }

  /** Writes the state to the store; on failure the delivery is retried and finishes the write. */
  async persist(namespace: string, key: string, state: OperationState): Promise<void> {
    this.remember(namespace, state);
    try {
      await this.store.save(namespace, state);
      this.unsaved.delete(key);
    } catch (error) {
      this.unsaved.add(key);
      throw new RetryableDeliveryError(`could not save the Slack message reference in ${namespace}: ${String(error)}`);
    }
  }

  /** The newest of what the store and this process know; the store alone when it is newer. */
  private async currentState(n: ReleaseNotification, operationId: string, channelRef: string, key: string): Promise<OperationState | undefined> {
    const cached = await this.cache.load(n.release.namespace, operationId, channelRef);
    let stored: OperationState | undefined;
    try {
      stored = await this.store.load(n.release.namespace, operationId, channelRef);
    } catch (error) {
      if (cached) {
        this.log.warn(
          { release: `${n.release.namespace}/${n.release.name}`, err: String(error) },
          'slack: message references unreadable; using this process’s copy',
        );
        return cached;
      }
      // Without the reference a new message might duplicate one already posted: wait instead.
      throw new RetryableDeliveryError(`could not read the Slack message reference for ${key}: ${String(error)}`);
    }
    if (!cached) return stored;
    if (!stored) return cached;
    // Every change bumps the version, so a copy this process changed but could not save yet wins.
    return cached.version > stored.version ? cached : stored;
  }
}
