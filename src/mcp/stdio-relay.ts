import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../core/log.js';

/** JSON-RPC's code for an error of the server's own (the web server refused the token, or could not be reached). */
const SERVER_ERROR = -32000;

/** Pure: the JSON-RPC answer to a request the web server did not answer; undefined for a notification (nothing to answer). */
export function relayFailure(message: JSONRPCMessage, error: unknown): JSONRPCMessage | undefined {
  if (!('id' in message) || !('method' in message)) return undefined;
  return { jsonrpc: '2.0', id: message.id, error: { code: SERVER_ERROR, message: `helmcrew web server: ${(error as Error).message}` } };
}

/** Pure: the protocol version an initialize result agreed on (sent in each later request's header). */
export function agreedVersion(message: JSONRPCMessage): string | undefined {
  const result = 'result' in message ? (message.result as { protocolVersion?: unknown }) : undefined;
  return typeof result?.protocolVersion === 'string' ? result.protocolVersion : undefined;
}

/**
 * `helmcrew mcp --url`: a desktop client's stdio relayed to the web server's /mcp (Streamable HTTP)
 * with the token as its Bearer. The desktop then holds only that token — no kubeconfig, no Redis —
 * and every call is checked, rate-limited and audited where HTTP calls are. Messages pass through
 * unchanged, both ways.
 */
export async function relayStdio(mcpUrl: URL, token: string, log: Logger): Promise<{ closed: Promise<void> }> {
  const remote = new StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  const local = new StdioServerTransport();
  remote.onmessage = (message) => {
    const version = agreedVersion(message);
    if (version) remote.setProtocolVersion(version);
    void local.send(message);
  };
  remote.onerror = (error) => log.warn({ error: error.message }, 'mcp relay: the web server stream failed');
  local.onmessage = (message) => {
    remote.send(message).catch((error: unknown) => {
      const answer = relayFailure(message, error);
      if (answer) void local.send(answer);
      else log.warn({ error: (error as Error).message }, 'mcp relay: a notification was not delivered');
    });
  };
  const closed = new Promise<void>((resolve) => {
    local.onclose = () => {
      void remote.close().finally(resolve);
    };
  });
  await remote.start();
  await local.start();
  return { closed };
}
