import { KubeApiError } from '../../core/kube/api-error.js';

import { retryDelayMs } from '../../core/retry-delay.js';

/** Backoff for a failed reconcile: 1 s, 2 s, 4 s … capped at a minute (core/retry-delay.ts). Pure. */
export { retryDelayMs };

/** How many times one queued reconcile is tried before it waits for the next periodic check. */
export const RECONCILE_ATTEMPTS = 8;

/** Socket errors of a server that is down, restarting or cut off, as node names them. */
const OUTAGE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * Pure: why this error may be the API server being unreachable ("connect ECONNREFUSED …", "HTTP
 * 503"), or undefined for a failure of the release itself. Only a candidate: the same socket error
 * can come from another server, so an outage begins only when a probe of the API server fails too
 * (ApiOutage). Certificate errors are left out: they do not heal by waiting.
 */
export function apiOutageReason(error: unknown): string | undefined {
  if (error instanceof KubeApiError) return error.statusCode >= 500 ? `HTTP ${error.statusCode}` : undefined;
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && OUTAGE_CODES.has(code)) return current.message || code;
    current = current.cause;
  }
  return undefined;
}

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
