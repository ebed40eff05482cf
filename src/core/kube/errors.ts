import { KubeApiError } from './api-error.js';

/**
 * client-node's ApiException (the bot, the CLI and dev tooling still use client-node), told by
 * its class without importing client-node, whose import costs ~85 MiB of RSS in the controller.
 * test/unit/kube-errors.test.ts checks this against the real class.
 */
interface ClientNodeApiException extends Error {
  code: number;
  body: unknown;
}

function isClientNodeApiException(error: unknown): error is ClientNodeApiException {
  return error instanceof Error && error.constructor.name === 'ApiException' && typeof (error as { code?: unknown }).code === 'number';
}

/** HTTP status of a Kubernetes API failure, or undefined for anything else (network, bugs). */
export function apiStatusCode(error: unknown): number | undefined {
  if (error instanceof KubeApiError) return error.statusCode;
  return isClientNodeApiException(error) ? error.code : undefined;
}

export const isNotFound = (error: unknown): boolean => apiStatusCode(error) === 404;
export const isConflict = (error: unknown): boolean => apiStatusCode(error) === 409;
/** The identity the request was made as may not do it (RBAC), as opposed to a bad request. */
export const isForbidden = (error: unknown): boolean => apiStatusCode(error) === 403;

/** The API server's own message ("spec.interval: Invalid value: ...") when it sent one. */
export function apiErrorMessage(error: unknown): string {
  if (error instanceof KubeApiError) return error.status?.message ?? `HTTP ${error.statusCode}`;
  if (isClientNodeApiException(error)) {
    const body = typeof error.body === 'string' ? safeParse(error.body) : error.body;
    const message = (body as { message?: unknown } | undefined)?.message;
    return typeof message === 'string' ? message : `HTTP ${error.code}`;
  }
  return error instanceof Error ? error.message : String(error);
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Error codes of a server that could not be reached or trusted, as node and undici name them. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_HAS_EXPIRED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/**
 * Pure: the low-level reason ("connect ECONNREFUSED 127.0.0.1:6443") when an error, or one of its
 * causes (fetch wraps them in "fetch failed"), is a server that could not be reached; else undefined.
 */
export function unreachableReason(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && UNREACHABLE_CODES.has(code)) return current.message.includes(code) ? current.message : `${code}: ${current.message}`;
    current = current.cause;
  }
  return undefined;
}
