/**
 * How many reconcile passes this replica takes at once (the BullMQ worker's concurrency): as many
 * as helm slots, twice as many reading ahead (reconcileWorkers). After it handed a release back
 * (helm/slot-wait.ts) it takes only as many as slots until one frees: BullMQ gives a worker with
 * room the next job as its last one completes, so a replica reading ahead took the release it had
 * just handed back straight back, again and again (follower-supersede.test.ts, 20 times in 10 s),
 * and the idle replica never saw it.
 */
export class ReadAhead {
  private worker: { concurrency: number } | undefined;
  private paused = false;

  constructor(
    private readonly slots: number,
    private readonly passes: number,
  ) {}

  /** The worker whose concurrency this sets (it starts after the reconcile context, which tells this). */
  attach(worker: { concurrency: number }): void {
    this.worker = worker;
    worker.concurrency = this.paused ? this.slots : this.passes;
  }

  /** A release was handed back: no passes beyond the slots for now. */
  pause(): void {
    this.paused = true;
    if (this.worker && this.worker.concurrency !== this.slots) this.worker.concurrency = this.slots;
  }

  /** A helm slot is free: read ahead again. */
  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    if (this.worker) this.worker.concurrency = this.passes;
  }
}
