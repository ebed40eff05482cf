/**
 * Pure: CORS for `/mcp`, so an MCP client running in a browser page (on another origin) may call
 * it — only from the origins the operator lists (HELMCREW_MCP_CORS_ORIGINS; none by default). The
 * token travels in the Authorization header, never a cookie, so no credentials mode is needed and
 * none is allowed: a page can only use a token its user gave it.
 */

/** What a browser client sends: the bearer token, JSON-RPC, and the transport's own headers. */
export const MCP_ALLOWED_HEADERS = 'Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID';
/** What the client's script may read: the session id, and the 401's challenge that starts OAuth discovery. */
export const MCP_EXPOSED_HEADERS = 'Mcp-Session-Id, WWW-Authenticate';

/** The CORS headers for a request from `origin`: undefined when it sent none or is not listed (the browser then refuses the answer). */
export function mcpCorsHeaders(origin: string | undefined, allowed: readonly string[], preflight: boolean): Record<string, string> | undefined {
  if (!origin || !allowed.includes(origin)) return undefined;
  const common = { 'access-control-allow-origin': origin, vary: 'Origin' };
  return preflight
    ? {
        ...common,
        'access-control-allow-methods': 'POST, GET, DELETE, OPTIONS',
        'access-control-allow-headers': MCP_ALLOWED_HEADERS,
        'access-control-max-age': '600',
      }
    : { ...common, 'access-control-expose-headers': MCP_EXPOSED_HEADERS };
}
