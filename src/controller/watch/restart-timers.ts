/**
 * The restarts a watch has waiting out their backoff, by slot. `now()` runs them all at once:
 * when the API server answers again, a backoff step grown during the outage is not waited out.
 */
export class RestartTimers<K> {
  private readonly pending = new Map<K, { timer: NodeJS.Timeout; restart: () => Promise<void> }>();

  has(key: K): boolean {
    return this.pending.has(key);
  }

  later(key: K, delayMs: number, restart: () => Promise<void>): void {
    this.cancel(key);
    const timer = setTimeout(() => {
      this.pending.delete(key);
      void restart();
    }, delayMs);
    timer.unref();
    this.pending.set(key, { timer, restart });
  }

  /** Runs every waiting restart now; resolves when they have (their first list done or failed). */
  async now(): Promise<void> {
    const waiting = [...this.pending.entries()];
    for (const [key] of waiting) this.cancel(key);
    await Promise.all(waiting.map(([, { restart }]) => restart().catch(() => undefined)));
  }

  clear(): void {
    for (const key of [...this.pending.keys()]) this.cancel(key);
  }

  private cancel(key: K): void {
    const entry = this.pending.get(key);
    if (entry) clearTimeout(entry.timer);
    this.pending.delete(key);
  }
}
