import { QUEUE_NAMES, clusterKeyspace } from '../../core/fleet/cluster-keys.js';
import type { Logger } from '../../core/log.js';
import type { RedisConnection } from '../../core/redis.js';
import type { ChangeSignal } from './remote-follower.js';

/** How long one blocking read waits before it asks again (so a stop is never held longer). */
const BLOCK_MS = 10_000;

/** Pure: does one entry of BullMQ's events stream say a job was added (a notification published)? */
export function isAdded(fields: readonly string[]): boolean {
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === 'event') return fields[i + 1] === 'added';
  return false;
}

/**
 * A cluster's change signal from what already reaches the web through Redis: every release event
 * its controller records is published to the cluster's notify queue (notify/publish/publisher.ts),
 * and BullMQ writes an `added` entry to that queue's events stream (`<keyspace>:notify:events`),
 * which the hub's ACL may read. One blocking XREAD on its own connection while the cluster is
 * followed; only new entries (`$`), so a follower starts with what its pages were read with.
 * A status change without a release event (no notification) sends no signal.
 */
export function notifySignal(connect: () => RedisConnection, fleetPrefix: string, cluster: string, log: Logger): ChangeSignal {
  const stream = `${clusterKeyspace(fleetPrefix, cluster)}:${QUEUE_NAMES.notify}:events`;
  return (changed) => {
    const connection = connect();
    let stopped = false;
    void (async () => {
      let last = '$';
      while (!stopped) {
        try {
          const answer = await connection.xread('BLOCK', BLOCK_MS, 'STREAMS', stream, last);
          let added = false;
          for (const [, entries] of answer ?? [])
            for (const [id, fields] of entries) {
              last = id;
              added ||= isAdded(fields);
            }
          if (added && !stopped) changed();
        } catch (error) {
          if (stopped) return;
          log.debug({ cluster, err: error }, 'the change signal of a followed cluster failed; reading again');
          await new Promise((resolve) => setTimeout(resolve, 1000));
        }
      }
    })();
    return () => {
      stopped = true;
      connection.disconnect();
    };
  };
}
