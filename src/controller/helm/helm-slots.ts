import type { HelmStep } from './helm-error.js';

/**
 * The helm processes that change a release, at most `size` at once (HELMCREW_CONCURRENCY). The
 * reconcile workers are more than that (controller.ts), so while helm runs in every slot the next
 * passes do their reads (the object, Helm's records, chart and values, the "attempt started"
 * status) and wait here: a slot freed by a helm that ended is taken by the next helm at once,
 * not after that pass's status write, Event and queue round trip and the next pass's reads
 * (bench/burst.ts: ~0.4 s a release between one helm's end and the next start, a slot in seven idle).
 * First come, first served.
 */
export class HelmSlots {
  private free: number;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new Error(`helm slots must be a whole number ≥ 1, got ${size}`);
    this.free = size;
  }

  /** Waits for a slot; the function returned gives it back (once). Rejects with `signal`'s reason when aborted while waiting. */
  async acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) throw abortReason(signal);
    if (this.free > 0) {
      this.free--;
      return this.releaser();
    }
    await new Promise<void>((resolve, reject) => {
      const take = () => {
        signal?.removeEventListener('abort', abort);
        resolve();
      };
      const abort = () => {
        const at = this.waiting.indexOf(take);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(abortReason(signal!));
      };
      this.waiting.push(take);
      signal?.addEventListener('abort', abort, { once: true });
    });
    return this.releaser();
  }

  /** How many helm processes wait for a slot now. */
  get queued(): number {
    return this.waiting.length;
  }

  private releaser(): () => void {
    let given = false;
    return () => {
      if (given) return;
      given = true;
      // A waiter takes the slot over directly; it is never free in between.
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    };
  }
}

/** The steps that change a release and so take a slot; a pull, a dry run (a preview from chat) or `helm show` does not. */
export function takesSlot(step: HelmStep): boolean {
  return step === 'install' || step === 'upgrade' || step === 'rollback' || step === 'uninstall' || step === 'test';
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('aborted');
}
