import { KubeApiError } from './api-error.js';

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
