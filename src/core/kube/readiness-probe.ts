import { KubeApiError } from './api-error.js';
import type { KubeRest } from './rest-client.js';

/**
 * Pure: whether an API server's answer to `/readyz` means it serves again. A server that has just
 * restarted answers `/version` seconds before it serves custom resources ("the request has been
 * made before all known HTTP paths have been installed", a 503): `/readyz` is 200 only once every
 * start-up hook is done, CRDs included. A 401 or 403 means a cluster that hides `/readyz` from this
 * identity: the server answers, which is all an outage's probe can learn there.
 */
export function serves(error: unknown): boolean {
  if (error === undefined) return true;
  return error instanceof KubeApiError && (error.statusCode === 401 || error.statusCode === 403);
}

/** One cheap request: resolves when the API server serves again, rejects while it does not. */
export async function probeApiServer(rest: KubeRest, timeoutMs = 2000): Promise<void> {
  try {
    await rest.requestText({ method: 'GET', path: '/readyz', timeoutMs });
  } catch (error) {
    if (!serves(error)) throw error;
  }
}
