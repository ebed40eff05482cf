import { Queue, QueueEvents } from 'bullmq';
import type { RedisConnection } from '../redis.js';
import { clusterKeyspace, QUEUE_NAMES } from './cluster-keys.js';
import type { CommandOutcome } from './command-protocol.js';
import { QUERY_JOB, type QueryAnswer, type SignedQuery } from './fleet-query.js';
import type { SignedCommand } from './signed-command.js';

type Job = SignedCommand | SignedQuery;
type Answer = CommandOutcome | QueryAnswer;

/**
 * Sends signed commands to clusters' agents over the fleet's Redis and waits for their outcome
 * (the bot's side; it holds no kubeconfig of those clusters). One queue per cluster, in that
 * cluster's keyspace; its QueueEvents are opened on first use and kept.
 */
export class FleetCommandClient {
  private readonly lanes = new Map<string, { queue: Queue<Job, Answer>; events: QueueEvents; connection: RedisConnection }>();

  constructor(
    private readonly connection: RedisConnection,
    private readonly fleetPrefix: string,
  ) {}

  private lane(cluster: string) {
    let lane = this.lanes.get(cluster);
    if (!lane) {
      const prefix = clusterKeyspace(this.fleetPrefix, cluster);
      // QueueEvents blocks on a stream read: a connection of its own, which close() ends.
      const connection = this.connection.duplicate();
      lane = {
        queue: new Queue<Job, Answer>(QUEUE_NAMES.command, { connection: this.connection, prefix }),
        events: new QueueEvents(QUEUE_NAMES.command, { connection, prefix }),
        connection,
      };
      this.lanes.set(cluster, lane);
    }
    return lane;
  }

  /** Puts the command on the queue of the cluster it is signed for; the answer, or why there is none within `timeoutMs`. */
  async send(signed: SignedCommand, timeoutMs: number, cluster = signed.command.cluster): Promise<CommandOutcome> {
    return (await this.ask(cluster, signed.command.verb, signed, timeoutMs, { age: 600 })) as CommandOutcome;
  }

  /** A read-only question (core/fleet/fleet-query.ts); its answer is kept a minute (removed at once, a fast answer could be missed). */
  async query(signed: SignedQuery, timeoutMs: number, cluster = signed.query.cluster): Promise<QueryAnswer> {
    return (await this.ask(cluster, QUERY_JOB, signed, timeoutMs, { age: 60 })) as QueryAnswer;
  }

  private async ask(cluster: string, name: string, data: Job, timeoutMs: number, removeOnComplete: { age: number }): Promise<Answer> {
    const lane = this.lane(cluster);
    await lane.events.waitUntilReady();
    const job = await lane.queue.add(name, data, { removeOnComplete, removeOnFail: { age: 600 } });
    try {
      return await job.waitUntilFinished(lane.events, timeoutMs);
    } catch {
      await job.remove().catch(() => undefined);
      return { ok: false, message: `no agent of cluster "${cluster}" answered within ${Math.round(timeoutMs / 1000)} s` };
    }
  }

  async close(): Promise<void> {
    for (const lane of this.lanes.values()) {
      await lane.events.close();
      await lane.queue.close();
      lane.connection.disconnect();
    }
    this.lanes.clear();
  }
}
