import type { Logger } from '../../core/log.js';
import { HelmCanceledError } from './helm-error.js';
import type { HelmSlots } from './helm-slots.js';
import { slotWait, type QueueLoad, type QueueLoadReader } from './slot-wait.js';

/** How an install or upgrade goes on: with a slot held for its helm, to wait for one (`waitFor`) after it says it started, or not here at all. */
export type SlotTake = { kind: 'held'; giveBack: () => void } | { kind: 'wait' } | { kind: 'hand-back' };

/**
 * Asked by an install or upgrade before it says it started (actions/supersedable-attempt.ts): a
 * free helm slot is taken and held for its helm, so no pass reading ahead takes it in between;
 * none free, the queue's load decides whether to wait for one (slot-wait.ts) — or to hand the
 * release back before anything says it started, so a busy replica does not hold what an idle one
 * could run. A pass that waits says it started first (its status write overlaps the helm
 * processes it waits for, as read-ahead intends), then waits here, before its helm: what follows
 * helm (the health checks' share of the timeout) counts from the slot, not from the wait.
 */
export class HelmSlotGate {
  constructor(
    private readonly slots: HelmSlots,
    private readonly load: QueueLoadReader | undefined,
    private readonly log: Logger,
    /** Told of a hand-back: this replica takes no more passes than slots until one frees (queue/read-ahead.ts). */
    private readonly handedBack: () => void = () => undefined,
  ) {}

  async take(key: string): Promise<SlotTake> {
    const free = this.slots.tryAcquire();
    if (free) return { kind: 'held', giveBack: this.slots.holdFor(key, free) };
    const load = await this.readLoad(key);
    // A helm may have ended while the queue was read.
    const freed = this.slots.tryAcquire();
    if (freed) return { kind: 'held', giveBack: this.slots.holdFor(key, freed) };
    if (slotWait(load) === 'wait') return { kind: 'wait' };
    this.log.info({ release: key, action: 'hand-back', queued: load.queued }, 'every helm slot here is taken and nothing is queued: handed back for another replica');
    this.handedBack();
    return { kind: 'hand-back' };
  }

  /** Waits for a slot and holds it for `key`'s helm; a newer generation (`signal`) cancels the wait as it would cancel helm. */
  async waitFor(key: string, step: 'install' | 'upgrade', signal?: AbortSignal): Promise<() => void> {
    try {
      return this.slots.holdFor(key, await this.slots.acquire(signal));
    } catch (error) {
      if (!signal?.aborted) throw error;
      this.log.info({ release: key, action: step }, 'helm cancelled while waiting for a slot');
      throw new HelmCanceledError(step);
    }
  }

  private async readLoad(key: string): Promise<QueueLoad> {
    if (!this.load) return { queued: 0, otherReplicas: undefined };
    try {
      const queued = await this.load.queued();
      // Asked only when nothing is queued: with work queued the answer is to wait either way.
      return { queued, otherReplicas: queued > 0 ? undefined : await this.load.otherReplicas() };
    } catch (error) {
      this.log.warn({ release: key, error: (error as Error).message }, 'could not read the queue: waiting for a helm slot here');
      return { queued: 0, otherReplicas: undefined };
    }
  }
}
