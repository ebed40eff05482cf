import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { verdictMessage } from '../session/tokens/token-verdict.js';
import type { McpDeps } from './mcp-deps.js';
import { buildMcpServer } from './mcp-server.js';

/**
 * `helmcrew mcp`: the same tools over stdio for a desktop client, served directly (not through the
 * web server) with the token checked against Redis at start and again on every call.
 */
export async function serveStdio(deps: McpDeps, token: string): Promise<{ closed: Promise<void> } | { refused: string }> {
  const verdict = await deps.tokens.verdict(token);
  if (verdict.kind !== 'ok') {
    deps.audit.record({ tokenId: 'record' in verdict ? verdict.record.id : undefined, tool: '-', outcome: 'unauthenticated', detail: verdict.kind });
    return { refused: verdictMessage(verdict) };
  }
  const recheck = async () => {
    const now = await deps.tokens.verdict(token);
    return now.kind === 'ok' ? undefined : verdictMessage(now);
  };
  const server = buildMcpServer({ ...deps, recheck }, verdict.record);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => (transport.onclose = () => resolve()));
  await server.connect(transport);
  return { closed };
}
