import { Counter, type Registry } from 'prom-client';
import type { Logger } from '../core/log.js';

/**
 * Every assistant's call, audited: one log line with the token's id (never the token), the person,
 * the tool and the outcome, and a counter by tool and outcome on the registry the CLI hands in.
 */

export type CallOutcome = 'ok' | 'refused' | 'bad-input' | 'rate-limited' | 'unauthenticated' | 'error';

export interface McpAudit {
  record(call: { tokenId?: string; user?: string; tool: string; outcome: CallOutcome; detail?: string }): void;
}

export function mcpAudit(log: Logger, registry?: Registry): McpAudit {
  const calls = new Counter({
    name: 'helmcrew_mcp_calls_total',
    help: 'Assistant (MCP) tool calls, by tool and outcome',
    labelNames: ['tool', 'outcome'] as const,
    registers: registry ? [registry] : [],
  });
  return {
    record({ tokenId, user, tool, outcome, detail }) {
      calls.inc({ tool, outcome });
      const line = { token: tokenId, person: user ? `slack:${user}` : undefined, tool, outcome, ...(detail ? { detail: detail.slice(0, 300) } : {}) };
      if (outcome === 'ok') log.info(line, 'assistant call');
      else log.warn(line, 'assistant call');
    },
  };
}
