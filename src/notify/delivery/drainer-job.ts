import { DelayedError } from 'bullmq';
import type { Logger } from '../../core/log.js';
import { RetryableDeliveryError } from '../contract.js';
import type { DeliveryJob } from '../queues.js';
import { MailboxBusyError, StepAsideError } from './drain-mailbox.js';
import { DELIVERY_ATTEMPTS, deliveryRetryDelayMs, pacedWait } from './retry-policy.js';

/** What the drainer job needs: the drain itself (drainMailbox with its deps), a fresh lock token, the clock and a log. */
export interface DrainerPorts {
  drain(job: DeliveryJob, lockToken: string): Promise<unknown>;
  newLockToken(): string;
  now(): number;
  log: Logger;
}

/** The part of BullMQ's Job the drainer uses. */
export interface DrainerJobHandle {
  readonly data: DeliveryJob;
  updateData(data: DeliveryJob): Promise<void>;
  moveToDelayed(timestamp: number, token?: string): Promise<void>;
}

/**
 * The "notify-delivery" job: drains one mailbox. Two ways out are waits, not failures, so they use
 * no attempt (the job is moved to delayed and BullMQ is told so with a DelayedError): a rate limit
 * that asks for a longer wait than is worth holding a worker for (the reserved slot travels with
 * the job), and a server pacing us with Retry-After (for as long as pacedWait allows). Any other
 * error is thrown for BullMQ's retry with drainBackoff.
 */
export async function runDrainerJob(ports: DrainerPorts, job: DrainerJobHandle, token?: string): Promise<unknown> {
  try {
    return await ports.drain({ ...job.data }, ports.newLockToken());
  } catch (error) {
    if (error instanceof StepAsideError) {
      await job.updateData({ ...job.data, slotAt: error.slotAt, slotKey: error.slotKey });
      await job.moveToDelayed(ports.now() + error.waitMs, token);
      throw new DelayedError();
    }
    if (!(error instanceof RetryableDeliveryError)) throw error;
    const paced = pacedWait(error.retryAfterMs, job.data.pacedSince, ports.now());
    if (!paced) throw error;
    ports.log.warn(
      { team: job.data.team, release: job.data.release, channel: job.data.channelKey, waitMs: paced.waitMs, error: error.message },
      'delivery paced by the server; retrying after its Retry-After',
    );
    await job.updateData({ ...job.data, slotAt: undefined, slotKey: undefined, pacedSince: paced.pacedSince });
    await job.moveToDelayed(ports.now() + paced.waitMs, token);
    throw new DelayedError();
  }
}

/** Backoff for a drain job: the server's Retry-After when it gave one, a second when another drainer holds the mailbox. */
export function drainBackoff(attemptsMade: number, error: Error | undefined): number {
  if (error instanceof MailboxBusyError) return 1000;
  return deliveryRetryDelayMs(attemptsMade, error instanceof RetryableDeliveryError ? error.retryAfterMs : undefined);
}

/** How a failed drain attempt is logged: a busy mailbox is routine, the last attempt is an error. */
export function drainFailureLog(
  attemptsMade: number | undefined,
  error: Error,
  attempts = DELIVERY_ATTEMPTS,
): { level: 'debug' | 'warn' | 'error'; msg: string } {
  if (error instanceof MailboxBusyError) return { level: 'debug', msg: 'mailbox busy; trying again shortly' };
  if (attemptsMade !== undefined && attemptsMade >= attempts)
    return { level: 'error', msg: 'delivery still failing after every retry; it waits in its mailbox for the next notification' };
  return { level: 'warn', msg: 'delivery failed; will retry with backoff' };
}
