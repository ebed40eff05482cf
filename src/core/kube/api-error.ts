/** The API server's Status object, as it sends one with a failure. */
export interface KubeStatus {
  kind?: string;
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: unknown;
}

/** A request the API server answered with an error status (the slim client's only HTTP error). */
export class KubeApiError extends Error {
  override name = 'KubeApiError';

  constructor(
    readonly statusCode: number,
    /** The Status body, when the server sent one (a 404 from a missing route sends plain text). */
    readonly status: KubeStatus | undefined,
    readonly method: string,
    readonly path: string,
  ) {
    super(`${method} ${path}: HTTP ${statusCode}${status?.message ? `: ${status.message}` : ''}`);
  }
}

/** Parses an error body; a non-JSON body (a proxy's HTML, "404 page not found") gives undefined. */
export function parseStatus(text: string): KubeStatus | undefined {
  try {
    const body = JSON.parse(text) as unknown;
    return body && typeof body === 'object' ? body : undefined;
  } catch {
    return undefined;
  }
}
