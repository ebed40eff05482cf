import { Writable } from 'node:stream';
import { DelayedError } from 'bullmq';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { PermanentDeliveryError, RetryableDeliveryError, StepAsideError } from '../../src/notify/contract.js';
import { MailboxBusyError } from '../../src/notify/delivery/drain-mailbox.js';
import { drainBackoff, drainFailureLog, runDrainerJob, type DrainerJobHandle, type DrainerPorts } from '../../src/notify/delivery/drainer-job.js';
import { DELIVERY_ATTEMPTS, deliveryRetryDelayMs, PACED_LIMIT_MS } from '../../src/notify/delivery/retry-policy.js';
import type { DeliveryJob } from '../../src/notify/queues.js';

const NOW = Date.parse('2026-11-23T06:00:00Z');
const JOB: DeliveryJob = { mailbox: 'web|slack.#web|web/unicorn', team: 'web', channelKey: 'slack.#web', release: 'web/unicorn' };

/** A drain that fails (or returns) as told, a job recording what BullMQ would be asked, the log into memory. */
function fake(outcome: () => Promise<unknown>, data: DeliveryJob = JOB) {
  const drained: Array<{ job: DeliveryJob; lockToken: string }> = [];
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  let tokens = 0;
  const ports: DrainerPorts = {
    drain: (job, lockToken) => {
      drained.push({ job, lockToken });
      return outcome();
    },
    newLockToken: () => `lock-${++tokens}`,
    now: () => NOW,
    log: pino({ level: 'debug' }, stream),
  };
  const updates: DeliveryJob[] = [];
  const delays: Array<{ timestamp: number; token?: string }> = [];
  const job: DrainerJobHandle & { updates: DeliveryJob[]; delays: typeof delays } = {
    data: { ...data },
    updates,
    delays,
    async updateData(next) {
      updates.push(next);
    },
    async moveToDelayed(timestamp, token) {
      delays.push({ timestamp, token });
    },
  };
  return { ports, job, drained, lines };
}

describe('runDrainerJob', () => {
  it('drains the mailbox with a fresh lock token each time and returns what the drain returned', async () => {
    const { ports, job, drained } = fake(async () => 'drained 2');

    expect(await runDrainerJob(ports, job, 'bull-token')).toBe('drained 2');
    expect(await runDrainerJob(ports, job, 'bull-token')).toBe('drained 2');

    expect(drained).toEqual([
      { job: JOB, lockToken: 'lock-1' },
      { job: JOB, lockToken: 'lock-2' },
    ]);
    expect(job.updates).toEqual([]);
    expect(job.delays).toEqual([]);
  });

  it('a rate limit asking for a long wait: the job steps aside holding its reserved slot, no attempt used', async () => {
    const { ports, job } = fake(async () => {
      throw new StepAsideError(4000, 'rate limit (shared)', NOW + 4000, 'slack:update');
    });

    await expect(runDrainerJob(ports, job, 'bull-token')).rejects.toBeInstanceOf(DelayedError);

    expect(job.updates).toEqual([{ ...JOB, slotAt: NOW + 4000, slotKey: 'slack:update' }]);
    expect(job.delays).toEqual([{ timestamp: NOW + 4000, token: 'bull-token' }]);
  });

  it('a server pacing us (Retry-After): waits as asked, no attempt used, the slot given up, the pacing start kept; says so', async () => {
    const since = NOW - 60_000;
    const { ports, job, lines } = fake(
      async () => {
        throw new RetryableDeliveryError('HTTP 429', 7000);
      },
      { ...JOB, slotAt: NOW - 10, slotKey: 'k', pacedSince: since },
    );

    await expect(runDrainerJob(ports, job, 'bull-token')).rejects.toBeInstanceOf(DelayedError);

    expect(job.updates).toEqual([{ ...JOB, slotAt: undefined, slotKey: undefined, pacedSince: since }]);
    expect(job.delays).toEqual([{ timestamp: NOW + 7000, token: 'bull-token' }]);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 40,
        msg: 'delivery paced by the server; retrying after its Retry-After',
        team: 'web',
        release: 'web/unicorn',
        channel: 'slack.#web',
        waitMs: 7000,
      }),
    ]);
  });

  it.each([
    { name: 'a retryable failure without Retry-After', error: new RetryableDeliveryError('HTTP 503') },
    { name: 'paced for longer than the limit: attempts count again', error: new RetryableDeliveryError('HTTP 429', 7000), pacedSince: NOW - PACED_LIMIT_MS },
    { name: 'a permanent failure', error: new PermanentDeliveryError('channel_not_found', 'no such channel') },
    { name: 'the mailbox held by another drainer', error: new MailboxBusyError('busy') },
  ])('$name: thrown as is for BullMQ to retry with backoff; the job is not moved', async ({ error, pacedSince }) => {
    const { ports, job } = fake(
      async () => {
        throw error;
      },
      { ...JOB, pacedSince },
    );

    await expect(runDrainerJob(ports, job, 'bull-token')).rejects.toBe(error);

    expect(job.updates).toEqual([]);
    expect(job.delays).toEqual([]);
  });
});

describe('drainBackoff', () => {
  it.each([
    { name: 'another drainer holds the mailbox: a second', attempts: 5, error: new MailboxBusyError('busy'), want: 1000 },
    { name: "the server's Retry-After", attempts: 5, error: new RetryableDeliveryError('429', 42_000), want: 42_000 },
    { name: 'retryable without Retry-After: exponential', attempts: 3, error: new RetryableDeliveryError('503'), want: deliveryRetryDelayMs(3) },
    { name: 'any other error: exponential', attempts: 4, error: new Error('socket hang up'), want: deliveryRetryDelayMs(4) },
    { name: 'no error given: exponential', attempts: 2, error: undefined, want: deliveryRetryDelayMs(2) },
  ])('$name', ({ attempts, error, want }) => {
    expect(drainBackoff(attempts, error)).toBe(want);
  });

  it('exponential means 4 s at the third attempt', () => {
    expect(drainBackoff(3, new Error('x'))).toBe(4000);
  });
});

describe('drainFailureLog', () => {
  it.each([
    { name: 'busy mailbox: routine', attempts: DELIVERY_ATTEMPTS, error: new MailboxBusyError('busy'), want: 'debug' },
    { name: 'attempts left', attempts: DELIVERY_ATTEMPTS - 1, error: new Error('x'), want: 'warn' },
    { name: 'the last attempt', attempts: DELIVERY_ATTEMPTS, error: new Error('x'), want: 'error' },
    { name: 'no job', attempts: undefined, error: new Error('x'), want: 'warn' },
  ])('$name → $want', ({ attempts, error, want }) => {
    expect(drainFailureLog(attempts, error).level).toBe(want);
  });
});
