import { retryDelayMs } from '../../retry-delay.js';
import { KubeApiError } from '../api-error.js';
import { apiOutageReason } from '../outage-reason.js';

/** How often a watch tries again while the API server is down or starting: the outage probe's pace. */
export const OUTAGE_RESTART_MS = 2000;

/**
 * Pure: how long a failed watch waits before it starts again. An API server that is down or still
 * starting (a refused connection, a 5xx, "storage is (re)initializing" as a 429) is tried every
 * ≤ 2 s: one request per watch, and the watch is back within two seconds of the server, not at a
 * backoff step grown to 16 or 30 s during the outage (helm actions wait for the Freezes' list).
 * A 429 that names its Retry-After is honoured. Anything else (a missing CRD, a 403) is the
 * cluster's set-up: 1 s doubling to 30 s.
 */
export function watchRestartDelayMs(attempt: number, error: unknown): number {
  if (error instanceof KubeApiError && error.statusCode === 429) {
    const seconds = retryAfterSeconds(error);
    return seconds === undefined ? 1000 : Math.min(OUTAGE_RESTART_MS * 5, Math.max(250, seconds * 1000));
  }
  if (apiOutageReason(error) !== undefined) return Math.min(retryDelayMs(attempt, 250, OUTAGE_RESTART_MS), OUTAGE_RESTART_MS);
  return retryDelayMs(attempt, 1000, 30_000);
}

function retryAfterSeconds(error: KubeApiError): number | undefined {
  const details = error.status?.details as { retryAfterSeconds?: unknown } | undefined;
  return typeof details?.retryAfterSeconds === 'number' && details.retryAfterSeconds > 0 ? details.retryAfterSeconds : undefined;
}

/**
 * Pure: a failure that only says again that the API server is down or starting. Said once at warn
 * level per outage; its repeats every two seconds go to debug, so an outage is not 40 warnings a minute.
 */
export function isRepeatedOutageFailure(attempt: number, error: unknown): boolean {
  if (attempt <= 1) return false;
  return apiOutageReason(error) !== undefined || (error instanceof KubeApiError && error.statusCode === 429);
}
