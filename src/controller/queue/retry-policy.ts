import { apiOutageReason } from '../../core/kube/outage-reason.js';

import { retryDelayMs } from '../../core/retry-delay.js';

/** Backoff for a failed reconcile: 1 s, 2 s, 4 s … capped at a minute (core/retry-delay.ts). Pure. */
export { retryDelayMs };

/** How many times one queued reconcile is tried before it waits for the next periodic check. */
export const RECONCILE_ATTEMPTS = 8;

/** Pure: why an error may be the API server being unreachable (core/kube/outage-reason.ts). */
export { apiOutageReason };

/** What a failed reconcile does: wait for the API server without spending an attempt, or retry with backoff. */
export type FailureDecision = 'wait-for-api-server' | 'retry';

/**
 * Pure: a failure while the API server is known to be unreachable, or one a probe just confirmed
 * as such, waits for its return (no attempt, no backoff, no warning of its own); any other failure
 * is the release's and is retried with backoff as before.
 */
export function failureDecision(outageReason: string | undefined, apiServerAnswers: boolean): FailureDecision {
  return outageReason !== undefined && !apiServerAnswers ? 'wait-for-api-server' : 'retry';
}

/** How long an outage's probe waits before its next try: 250 ms, 500 ms, 1 s, then every 2 s. Pure. */
export function probeDelayMs(attempt: number): number {
  return retryDelayMs(attempt, 250, 2000);
}
