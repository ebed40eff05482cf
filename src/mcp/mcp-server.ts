import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { TokenRecord } from '../session/tokens/token-verdict.js';
import type { McpDeps } from './mcp-deps.js';
import { registerProposeTools } from './propose-tools.js';
import { registerReadTools } from './read-tools.js';

/** One MCP server for one authenticated caller: every tool acts as the token's person. */
export function buildMcpServer(deps: McpDeps, caller: TokenRecord, version = '1'): McpServer {
  const server = new McpServer(
    { name: 'helmcrew', version },
    {
      instructions:
        'helmcrew keeps Helm releases as declared. You act as the person whose token you hold, with their Team permissions. ' +
        'You can read releases and propose changes; people approve them. Nothing you call applies a change.',
    },
  );
  registerReadTools(server, deps, caller);
  registerProposeTools(server, deps, caller);
  return server;
}
