/**
 * A map bounded by the total size of its values (as the caller weighs them), dropping the least
 * recently used first, with entries that expire after their own time to live. No I/O; the clock
 * is passed in.
 */
export class ByteBoundedLru<V> {
  /** Map order is recency order: a hit moves its entry to the end. */
  private readonly entries = new Map<string, { value: V; bytes: number; expiresAt: number }>();
  private total = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly now: () => number,
  ) {}

  get bytes(): number {
    return this.total;
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (this.now() >= entry.expiresAt) {
      this.delete(key);
      return undefined;
    }
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Stores `value`; one larger than the whole budget is not kept at all. */
  set(key: string, value: V, bytes: number, ttlMs: number): void {
    this.delete(key);
    if (bytes > this.maxBytes) return;
    this.entries.set(key, { value, bytes, expiresAt: this.now() + ttlMs });
    this.total += bytes;
    for (const [oldest, old] of this.entries) {
      if (this.total <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.total -= old.bytes;
    }
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.total -= entry.bytes;
  }
}
