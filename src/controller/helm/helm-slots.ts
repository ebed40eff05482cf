import type { HelmStep } from './helm-error.js';

/**
 * The helm processes that change a release, at most `size` at once (HELMCREW_CONCURRENCY). The
 * reconcile workers are more than that (controller.ts), so while helm runs in every slot the next
 * passes do their reads (the object, Helm's records, chart and values, the "attempt started"
 * status) and wait here: a slot freed by a helm that ended is taken by the next helm at once,
 * not after that pass's status write, Event and queue round trip and the next pass's reads
 * (bench/burst.ts: ~0.4 s a release between one helm's end and the next start, a slot in seven idle).
 * First come, first served. An install or upgrade takes its slot before it says it started
 * (helm-slot-gate.ts) and holds it for its helm (`holdFor`).
 */
export class HelmSlots {
  private free: number;
  private readonly waiting: Array<() => void> = [];
  /** Slots taken for a release's next helm, by release key: that helm's `acquire` gets it without waiting. */
  private readonly held = new Map<string, () => void>();

  constructor(
    readonly size: number,
    /** Told when a slot becomes free with no helm waiting for it (queue/read-ahead.ts reads ahead again). */
    private readonly freed: () => void = () => undefined,
  ) {
    if (!Number.isInteger(size) || size < 1) throw new Error(`helm slots must be a whole number ≥ 1, got ${size}`);
    this.free = size;
  }

  /**
   * Waits for a slot; the function returned gives it back (once). Rejects with `signal`'s reason
   * when aborted while waiting. `key`: the release's helm, which gets the slot held for it, if any.
   */
  async acquire(signal?: AbortSignal, key?: string): Promise<() => void> {
    const held = key === undefined ? undefined : this.held.get(key);
    if (held) {
      this.held.delete(key!);
      return held;
    }
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

  /** A slot if one is free now, else undefined: never waits. */
  tryAcquire(): (() => void) | undefined {
    if (this.free === 0) return undefined;
    this.free--;
    return this.releaser();
  }

  /**
   * Keeps a slot taken (`free`, from acquire or tryAcquire) for `key`'s next release-changing helm,
   * which then starts without waiting. The function returned gives it back if that helm never
   * took it (once; after the helm it is a no-op: the helm gave it back).
   */
  holdFor(key: string, free: () => void): () => void {
    this.held.set(key, free);
    return () => {
      if (this.held.get(key) === free) this.held.delete(key);
      free();
    };
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
      else {
        this.free++;
        this.freed();
      }
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
