/**
 * A watch started once — by an explicit start or by its first read — for a cache that only some
 * callers need: the web's assistants' watches, which a server no assistant uses never lists.
 */
export class StartedOnRead {
  private starting?: Promise<void>;

  constructor(private readonly watch: { start(): Promise<void>; stop(): Promise<void>; readonly synced: boolean }) {}

  /** Starts the watch unless it has started (later calls wait for that start). */
  async start(): Promise<void> {
    this.starting ??= this.watch.start();
    await this.starting;
  }

  async stop(): Promise<void> {
    if (this.starting) await this.watch.stop();
  }

  /** A read: starts the watch if it is not; whether it has listed (until then the caller reads the API server). */
  wanted(): boolean {
    if (!this.starting) void this.start();
    return this.watch.synced;
  }
}
