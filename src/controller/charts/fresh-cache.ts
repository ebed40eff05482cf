import { ByteBoundedLru } from './byte-lru.js';

/**
 * Answers shared by every release that asks for the same key (a repository index, a tag list, a
 * digest), each caller saying how old an answer it accepts (its own interval). One load per key
 * at a time; a failure is remembered briefly, so many releases on one bad source load it once.
 * The loader gets the previous answer, for a conditional request (ETag, If-Modified-Since).
 */
export class FreshCache<V> {
  private readonly entries: ByteBoundedLru<{ value?: V; error?: Error; at: number }>;
  private readonly inFlight = new Map<string, Promise<V>>();

  constructor(
    private readonly options: {
      maxBytes: number;
      /** How long an answer is kept at all (to revalidate it cheaply later). */
      retainMs: number;
      failureTtlMs: number;
      now: () => number;
    },
  ) {
    this.entries = new ByteBoundedLru(options.maxBytes, options.now);
  }

  get bytes(): number {
    return this.entries.bytes;
  }

  async get(key: string, maxAgeMs: number, load: (previous: V | undefined) => Promise<V>, weigh: (value: V) => number): Promise<V> {
    const entry = this.entries.get(key);
    const age = this.options.now() - (entry?.at ?? 0);
    if (entry?.error && age < this.options.failureTtlMs) throw entry.error;
    if (entry?.value !== undefined && age < maxAgeMs) return entry.value;
    let running = this.inFlight.get(key);
    if (!running) {
      running = load(entry?.value)
        .then(
          (value) => {
            this.entries.set(key, { value, at: this.options.now() }, weigh(value), this.options.retainMs);
            return value;
          },
          (error: Error) => {
            this.entries.set(key, { error, at: this.options.now() }, 256, this.options.failureTtlMs);
            throw error;
          },
        )
        .finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, running);
    }
    return running;
  }
}
