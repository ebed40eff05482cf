import type { RedisConnection } from '../../core/redis.js';
import type { Logger } from '../../core/log.js';

/** The Redis channel the leader tells every replica on of a release's new generation. */
export const generationChannel = (prefix: string): string => `${prefix}:generations`;

export interface SeenGeneration {
  key: string;
  generation: number;
}

/** Pure: the message for one new generation. */
export function encodeGeneration(seen: SeenGeneration): string {
  return JSON.stringify(seen);
}

/** Pure: the generation a message tells of, or undefined for anything malformed (never a throw). */
export function decodeGeneration(message: string): SeenGeneration | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== 'object') return undefined;
  const { key, generation } = parsed as Record<string, unknown>;
  if (typeof key !== 'string' || !/^[^/\s]+\/[^/\s]+$/.test(key)) return undefined;
  if (typeof generation !== 'number' || !Number.isSafeInteger(generation) || generation < 1) return undefined;
  return { key, generation };
}

/**
 * With leader election only the leader watches HelmReleases, but any replica may be running the
 * helm operation a new generation makes obsolete (a doomed `--wait`). The leader publishes each new
 * generation it sees; every replica hears it and cancels what it runs for an older one. Redis
 * pub/sub: a message missed (a reconnect) costs only the wait the cancel would have saved.
 */
export class GenerationBroadcast {
  private subscriber?: RedisConnection;

  constructor(
    private readonly connection: RedisConnection,
    private readonly prefix: string,
    private readonly log: Logger,
  ) {}

  publish(key: string, generation: number | undefined): void {
    if (generation === undefined) return;
    this.connection
      .publish(generationChannel(this.prefix), encodeGeneration({ key, generation }))
      .catch((error: Error) => this.log.warn({ release: key, error: error.message }, 'could not tell the other replicas of a new generation'));
  }

  /** Subscribes on a connection of its own (a subscribed connection can do nothing else). */
  async subscribe(onGeneration: (seen: SeenGeneration) => void): Promise<void> {
    const subscriber = this.connection.duplicate();
    this.subscriber = subscriber;
    subscriber.on('message', (_channel: string, message: string) => {
      const seen = decodeGeneration(message);
      if (seen) onGeneration(seen);
      else this.log.warn({ channel: generationChannel(this.prefix) }, 'ignored a malformed generation message');
    });
    await subscriber.subscribe(generationChannel(this.prefix));
  }

  close(): void {
    this.subscriber?.disconnect();
  }
}
