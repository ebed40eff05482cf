import type { Registry } from 'prom-client';
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
  // Counted only on a registry the CLI serves (`helmcrew run`, which has prom-client loaded already):
  // `helmcrew web` alone has none and does not load prom-client for a counter nobody could read.
  let count: (tool: string, outcome: CallOutcome) => void = () => undefined;
  if (registry) {
    const early: Array<[string, CallOutcome]> = [];
    count = (tool, outcome) => void early.push([tool, outcome]);
    void import('prom-client').then(({ Counter }) => {
      const calls = new Counter({
        name: 'helmcrew_mcp_calls_total',
        help: 'Assistant (MCP) tool calls, by tool and outcome',
        labelNames: ['tool', 'outcome'] as const,
        registers: [registry],
      });
      count = (tool, outcome) => calls.inc({ tool, outcome });
      for (const [tool, outcome] of early) count(tool, outcome);
    });
  }
  return {
    record({ tokenId, user, tool, outcome, detail }) {
      count(tool, outcome);
      const line = { token: tokenId, person: user ? `slack:${user}` : undefined, tool, outcome, ...(detail ? { detail: detail.slice(0, 300) } : {}) };
      if (outcome === 'ok') log.info(line, 'assistant call');
      else log.warn(line, 'assistant call');
    },
  };
}
