import type { JobsOptions } from 'bullmq';
import type { Team } from '../../api/team.js';
import type { Logger } from '../../core/log.js';
import type { ReleaseNotification } from '../contract.js';
import { mailboxId } from '../delivery/mailbox.js';
import { DELIVERY_ATTEMPTS } from '../delivery/retry-policy.js';
import type { DeliveryJob } from '../queues.js';
import { routeEvent } from './route-event.js';

/** What the router job needs: the Teams, the mailboxes, the drain queue and the unrouted marks (Redis behind each in production). */
export interface RouterPorts {
  directory: { readonly ready: boolean; teams(): readonly Team[] };
  mailboxes: { enqueue(mailbox: string, notification: ReleaseNotification): Promise<unknown> };
  /** The "notify-delivery" queue (BullMQ's Queue.add). */
  drains: { add(name: 'drain', data: DeliveryJob, options: JobsOptions): Promise<unknown> };
  unrouted: { unmark(notification: ReleaseNotification): Promise<void> };
  log: Logger;
  /** The cluster whose keyspace the notification was read from (HELMCREW_CLUSTER_NAME, or a fleet notify's cluster): stamped before routing. */
  cluster?: string;
  /** Failed tries of each drain job (HELMCREW_NOTIFY_DELIVERY_ATTEMPTS); default DELIVERY_ATTEMPTS. */
  deliveryAttempts?: number;
}

/**
 * One drain job per mailbox at a time: while one waits, another add is dropped (the waiting job
 * will drain what was just filed); while one runs, the last add is kept so what arrived during the
 * drain is not left behind.
 */
export function drainJobOptions(mailbox: string, attempts = DELIVERY_ATTEMPTS): JobsOptions {
  return {
    deduplication: { id: mailbox, keepLastIfActive: true },
    attempts,
    backoff: { type: 'delivery' },
    removeOnComplete: true,
    removeOnFail: { age: 7 * 24 * 3600, count: 1000 },
  };
}

/**
 * The "notify" job: files one published notification in the mailbox of every (team, channel) that
 * subscribed, then asks for each mailbox to be drained. The mailbox is filled before its drain job
 * is added, so a drain never starts on a mailbox that misses the notification. Throws while the
 * Teams are not listed yet (the job retries): routing against no Teams would drop it.
 * Returns the number of channels it went to.
 */
export async function runRouterJob(ports: RouterPorts, published: ReleaseNotification): Promise<number> {
  if (!ports.directory.ready) throw new Error('Teams not listed yet');
  // The keyspace says which cluster it is from (only that cluster's agents may write there), not the job.
  const notification = ports.cluster ? { ...published, cluster: ports.cluster } : published;
  const release = `${notification.release.namespace}/${notification.release.name}`;
  const routes = routeEvent(notification, ports.directory.teams());
  for (const route of routes) {
    const mailbox = mailboxId(route.team, route.channelKey, release);
    await ports.mailboxes.enqueue(mailbox, notification);
    await ports.drains.add('drain', { mailbox, team: route.team, channelKey: route.channelKey, release }, drainJobOptions(mailbox, ports.deliveryAttempts));
  }
  // Routed: a drain of a later notification of this release no longer waits for this one.
  await ports.unrouted.unmark(notification);
  ports.log.info(
    {
      release,
      ...(notification.cluster ? { cluster: notification.cluster } : {}),
      event: notification.event,
      notification: notification.id,
      teams: [...new Set(routes.map((r) => r.team))],
      channels: routes.length,
    },
    routes.length ? 'routed' : 'no Team subscribed',
  );
  return routes.length;
}
