import type { Logger } from '../../core/log.js';
import { channelKey, channelLabel, channelRefOf } from '../channels.js';
import { PermanentDeliveryError, RetryableDeliveryError, StepAsideError, type ChannelRef, type Pace, type PacedCall } from '../contract.js';
import type { ProviderRegistry } from '../providers/registry.js';
import type { DeliveryJob } from '../queues.js';
import type { TeamDirectory } from '../team-directory.js';
import type { TeamStatusWriter } from '../team-status-writer.js';
import type { Mailboxes } from './mailbox.js';
import type { ChannelRateLimiter } from './rate-limiter.js';
import { prepareForChannel } from '../templates/apply-template.js';
import { planDelivery } from './plan-delivery.js';
import type { UnroutedMarks } from './unrouted.js';

/** Another drainer (a replica, or a job recovered after a crash) holds the mailbox: try again shortly. */
export class MailboxBusyError extends Error {
  override name = 'MailboxBusyError';
}

export { StepAsideError };

/** Waits shorter than this are slept through; longer ones give the worker slot back. */
const MAX_SLEEP_MS = 250;

export interface DrainDeps {
  mailboxes: Mailboxes;
  unrouted: UnroutedMarks;
  limiter: ChannelRateLimiter;
  providers: ProviderRegistry;
  directory: TeamDirectory;
  status: TeamStatusWriter;
  log: Logger;
  /** The same event of the same operation within this window is said once. */
  coalesceWindowMs: number;
  /** Drain lock lifetime; renewed before each delivery. Longer than a provider call may take. */
  lockMs: number;
  now: () => Date;
  sleep: (ms: number) => Promise<void>;
  /** HELMCREW_CLUSTER_NAME, stamped on every notification. */
  cluster?: string;
  /** HELMCREW_STATUS_URL, for templates' links.status. */
  statusUrl?: string;
}

/** A job's rate-limit slot, reserved before it stepped aside: used once, when due (a stale one is not). */
interface HeldSlot {
  slotAt?: number;
  slotKey?: string;
}

/**
 * Paces one call of a delivery: uses the slot the job holds for that bucket when it is due, else
 * reserves the bucket's next slot and sleeps through a short wait; a long one steps aside holding
 * the slot. Each call reserves when it is about to go, so a slot is never spent long after it was
 * counted (a bucket full at Slack's end would have lost that refill).
 */
function pacer(deps: DrainDeps, job: HeldSlot & { channelKey: string }): Pace {
  return async (call: PacedCall) => {
    const key = call.bucket === 'channel' ? deps.limiter.channelBucket(job.channelKey) : call.key;
    const limit = call.bucket === 'channel' ? deps.limiter.channelLimit() : { perSecond: call.perSecond, burst: call.burst };
    const held = job.slotAt !== undefined && (job.slotKey ?? deps.limiter.channelBucket(job.channelKey)) === key ? job.slotAt : undefined;
    if (held !== undefined) job.slotAt = job.slotKey = undefined;
    const now = deps.now().getTime();
    if (held !== undefined && held >= now - 1000 && held <= now + MAX_SLEEP_MS) {
      if (held > now) await deps.sleep(held - now);
      return true;
    }
    const reservation = [{ key, limit, count: 1 }];
    const within = call.bucket === 'shared' ? call.within : undefined;
    const wait = within === undefined ? await deps.limiter.reserveAll(reservation) : await deps.limiter.reserveWithin(reservation, within);
    if (wait === undefined) return false;
    if (wait > MAX_SLEEP_MS)
      throw new StepAsideError(wait, `rate limit (${call.bucket}): next call in ${wait} ms`, now + wait, call.bucket === 'channel' ? undefined : key);
    if (wait > 0) await deps.sleep(wait);
    return true;
  };
}

function findChannel(deps: DrainDeps, team: string, key: string): { channel: ChannelRef; template?: string } | undefined {
  for (const written of deps.directory.get(team)?.spec.channels ?? []) {
    const ref = channelRefOf(written);
    if (ref && channelKey(ref) === key) return { channel: ref, template: written.template };
  }
  return undefined;
}

/**
 * Delivers what waits in one mailbox (one release, one channel of one team), oldest first, one at
 * a time, until it is empty. A RetryableDeliveryError leaves the head in place and fails the job,
 * so the queue retries it with backoff and order is kept. A PermanentDeliveryError is recorded on
 * the Team and the notification is dropped from this mailbox only. Returns how many were delivered.
 */
export async function drainMailbox(deps: DrainDeps, job: DeliveryJob, token: string): Promise<number> {
  const { mailboxes, log } = deps;
  if (!(await mailboxes.lock(job.mailbox, token, deps.lockMs))) throw new MailboxBusyError(`mailbox ${job.mailbox} is being drained elsewhere`);
  let delivered = 0;
  try {
    for (;;) {
      const pending = await mailboxes.pending(job.mailbox);
      const plan = planDelivery(pending, await mailboxes.lastDelivered(job.mailbox), deps.coalesceWindowMs);
      if (plan.kind === 'idle') return delivered;
      const { notification, consume } = plan;
      if (await deps.unrouted.earlierUnrouted(notification)) throw new StepAsideError(200, 'an earlier notification of this release is still being routed');
      // An earlier one may have been filed here, and unmarked, between reading `pending` and that
      // check: it is in the mailbox now (the router files before it unmarks) and goes first.
      if ((await mailboxes.pending(job.mailbox, 1))[0]?.id !== consume[0]) continue;
      const fields = { team: job.team, release: job.release, event: notification.event, notification: notification.id, coalesced: consume.length - 1 };
      if (plan.kind === 'suppress') {
        await mailboxes.consume(job.mailbox, consume);
        log.info({ ...fields, channel: job.channelKey }, 'suppressed: the same event of this operation was delivered moments ago');
        continue;
      }
      const found = findChannel(deps, job.team, job.channelKey);
      if (!found) {
        await mailboxes.consume(job.mailbox, consume);
        log.warn({ ...fields, channel: job.channelKey }, 'dropped: the Team or this channel no longer exists');
        continue;
      }
      const { channel } = found;
      const label = channelLabel(channel);
      const prepared = prepareForChannel(notification, found.template, deps.cluster, deps.statusUrl);
      try {
        const provider = deps.providers.get(channel.kind);
        if (!provider) throw new PermanentDeliveryError('provider_not_configured', `no ${channel.kind} provider is configured in this notify process`);
        const pace = pacer(deps, job);
        // A provider that makes several counted calls (Slack: post or edit, thread reply) paces each; others send one message.
        if (!provider.pacesItself) await pace({ bucket: 'channel' });
        if (!(await mailboxes.lock(job.mailbox, token, deps.lockMs))) throw new MailboxBusyError(`lost the lock of mailbox ${job.mailbox}`);
        const started = Date.now();
        await provider.deliver(prepared.notification, channel, job.team, provider.pacesItself ? pace : undefined);
        await mailboxes.consume(job.mailbox, consume, {
          id: notification.id,
          event: notification.event,
          operationId: notification.operationId,
          atMs: Date.parse(notification.at),
        });
        delivered++;
        log.info({ ...fields, channel: label, callMs: Date.now() - started, sinceEventMs: deps.now().getTime() - Date.parse(notification.at) }, 'delivered');
        void deps.status.record(job.team, { channel: label, ok: true, at: deps.now() });
        void deps.status.warn(job.team, label, prepared.templateError);
      } catch (error) {
        if (error instanceof PermanentDeliveryError) {
          await mailboxes.consume(job.mailbox, consume);
          log.warn({ ...fields, channel: label, code: error.code, error: error.message }, 'delivery refused for good; recorded on the Team, not retried');
          await deps.status.record(job.team, { channel: label, ok: false, code: error.code, message: error.message, at: deps.now() });
          continue;
        }
        if (error instanceof RetryableDeliveryError || error instanceof MailboxBusyError || error instanceof StepAsideError) throw error;
        // A provider bug or an unexpected failure: retried like a network error, logged by name.
        throw new RetryableDeliveryError(`${channel.kind} provider failed: ${error instanceof Error ? error.name : 'unknown error'}`);
      }
    }
  } finally {
    await mailboxes.unlock(job.mailbox, token).catch(() => undefined);
  }
}
