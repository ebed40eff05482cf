import { Queue } from 'bullmq';
import type { RedisConnection } from '../../core/redis.js';
import { answeredWithin, LATE } from '../../core/answered-within.js';
import type { HelmRelease } from '../../api/helmrelease.js';
import type { ReleaseEvent } from '../../api/vocabulary.js';
import type { EventDetails, ReleaseEventSink } from '../../core/events/release-event-sink.js';
import type { Logger } from '../../core/log.js';
import type { ReleaseNotification } from '../contract.js';
import { NOTIFY_QUEUE, type NotifyJob } from '../queues.js';
import { UnroutedMarks } from '../delivery/unrouted.js';
import { buildNotification, newNotificationId } from './notification.js';

export interface PublisherOptions {
  connection: RedisConnection;
  prefix: string;
  log: Logger;
  /** How long a reconcile waits for Redis to accept a notification before going on (the add continues). */
  maxWaitMs?: number;
  /** An add still unanswered this long is a Redis problem worth a warning; one answered sooner is not (a busy node is slow, not broken). */
  slowWarnMs?: number;
  /** Adds still unanswered beyond this are refused at once (Redis is away): memory stays bounded. */
  maxInFlight?: number;
  now?: () => Date;
}

/**
 * Publishes one ReleaseNotification per happening to the durable "notify" queue, beside the
 * Kubernetes Event. It never fails and never holds a reconcile longer than maxWaitMs: a slow or
 * absent Redis is logged, not waited out. Once Redis has the job it is kept until routed, and the
 * routed copies until delivered.
 */
export class NotifyPublisher implements ReleaseEventSink {
  private readonly queue: Queue<NotifyJob>;
  private readonly maxWaitMs: number;
  private readonly slowWarnMs: number;
  private readonly maxInFlight: number;
  private readonly now: () => Date;
  private inFlight = 0;
  private readonly unrouted: UnroutedMarks;

  constructor(private readonly opts: PublisherOptions) {
    this.queue = new Queue<NotifyJob>(NOTIFY_QUEUE, { connection: opts.connection, prefix: opts.prefix });
    this.maxWaitMs = opts.maxWaitMs ?? 250;
    this.slowWarnMs = Math.max(this.maxWaitMs, opts.slowWarnMs ?? 5_000);
    this.maxInFlight = opts.maxInFlight ?? 1000;
    this.now = opts.now ?? (() => new Date());
    this.unrouted = new UnroutedMarks(opts.connection, opts.prefix);
  }

  async record(release: HelmRelease, event: ReleaseEvent, message: string, details: EventDetails = {}): Promise<void> {
    const now = this.now();
    const notification = buildNotification(release, event, message, details, now, newNotificationId(now));
    await this.publish(notification);
  }

  async publish(notification: ReleaseNotification): Promise<void> {
    const fields = { release: `${notification.release.namespace}/${notification.release.name}`, event: notification.event, notification: notification.id };
    if (this.inFlight >= this.maxInFlight) {
      this.opts.log.error({ ...fields, inFlight: this.inFlight }, 'notification not published: Redis has not answered the earlier ones');
      return;
    }
    this.inFlight++;
    const started = Date.now();
    // Sent before the add on the same connection, so Redis has the mark whenever it has the job.
    this.unrouted.mark(notification).catch(() => undefined);
    const added = this.queue
      .add(notification.event, notification, {
        jobId: notification.id,
        // Routing fails only while Teams cannot be listed; notify's backoff is capped at 5 minutes.
        attempts: 50,
        backoff: { type: 'routing' },
        removeOnComplete: true,
        removeOnFail: false,
      })
      .then(
        () => true,
        (error: Error) => {
          this.opts.log.error({ ...fields, error: error.message }, 'notification not published');
          return true;
        },
      )
      .finally(() => this.inFlight--);
    if ((await answeredWithin(added, this.maxWaitMs)) === LATE) this.followSlowAdd(added, started, fields);
  }

  /**
   * The reconcile went on without the add's answer. Ten helm processes on two cores make the
   * controller itself late to read a prompt answer (31 of 1,000 installs at concurrency 10, each add
   * done), so only an add unanswered for `slowWarnMs` is warned of; the rest are a debug line.
   */
  private followSlowAdd(added: Promise<boolean>, started: number, fields: Record<string, string>): void {
    let warned = false;
    const warnTimer = setTimeout(
      () => {
        warned = true;
        this.opts.log.warn({ ...fields, waitedMs: Date.now() - started }, 'Redis is slow to accept a notification; the reconcile went on, the add continues');
      },
      this.slowWarnMs - (Date.now() - started),
    );
    warnTimer.unref();
    void added.then(() => {
      clearTimeout(warnTimer);
      const tookMs = Date.now() - started;
      if (warned) this.opts.log.info({ ...fields, tookMs }, 'Redis accepted the notification at last');
      else this.opts.log.debug({ ...fields, tookMs, waitedMs: this.maxWaitMs }, 'Redis accepted the notification after the reconcile went on');
    });
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}
