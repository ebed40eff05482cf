/**
 * The helm installs and upgrades running in this process, by release key and the generation
 * they apply. When the watch sees a newer generation, the older operation is cancelled, so a
 * fixed spec never waits behind a doomed `--wait`. Without leader election every replica watches
 * every release and sees the new generation itself; with it, the leader tells the followers
 * (leader/generation-broadcast.ts).
 */
export class RunningOperations {
  private readonly running = new Map<string, { generation: number; controller: AbortController }>();

  begin(key: string, generation: number | undefined): { signal: AbortSignal; end: () => void } {
    const entry = { generation: generation ?? 0, controller: new AbortController() };
    this.running.set(key, entry);
    return {
      signal: entry.controller.signal,
      end: () => {
        if (this.running.get(key) === entry) this.running.delete(key);
      },
    };
  }

  /** A generation was seen for `key`: cancel what runs for an older one. Returns whether it did. */
  supersede(key: string, generation: number | undefined): boolean {
    const entry = this.running.get(key);
    if (!entry || !supersedes(generation, entry.generation)) return false;
    entry.controller.abort();
    this.running.delete(key);
    return true;
  }
}

/** Pure: does a newly seen generation make a running operation for `running` obsolete? */
export function supersedes(seen: number | undefined, running: number): boolean {
  return seen !== undefined && seen > running;
}
