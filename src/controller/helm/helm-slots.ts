/**
 * At most `limit` helm processes at once in this controller, first come first served.
 * HELMCREW_CONCURRENCY bounds helm processes (what costs CPU and memory), while a few more
 * reconciles than that may run: each spends ~150 ms on API calls before and after its helm
 * process (bench/RESULTS.md, issue 9), and with one reconcile per helm slot those slots sat idle
 * for that long, making bursts 1.16–1.28× slower than `xargs -P4 helm` at the same concurrency.
 */
export class HelmSlots {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly limit: number) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.running < this.limit) this.running++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await fn();
    } finally {
      // Hand the slot straight to the next waiter, so a newcomer cannot jump the line.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}

/** Pure: how many reconciles may run beside `helmProcesses` helm slots (the API work overlaps helm). */
export function reconcileConcurrency(helmProcesses: number): number {
  return helmProcesses + Math.ceil(helmProcesses / 2);
}
