import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { TokenRecord, TokenScope } from '../session/tokens/token-verdict.js';
import { scopeAllows, tokenOrigin, tokenPerson } from '../session/tokens/token-verdict.js';
import type { CallOutcome } from './audit.js';
import type { McpDeps } from './mcp-deps.js';

/**
 * Around every tool: the token's scope, its rate (per token, per minute), the audit line and
 * counter, and any failure answered as a tool error — never a crash, never a stack or a secret.
 */

export interface ToolAnswer {
  text: string;
  outcome: CallOutcome;
  structured?: Record<string, unknown>;
}

export const toolError = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });

export function guarded<A>(
  deps: Pick<McpDeps, 'tokens' | 'ratePerMinute' | 'audit' | 'log' | 'recheck'>,
  caller: TokenRecord,
  tool: string,
  needs: TokenScope,
  run: (args: A) => Promise<ToolAnswer>,
): (args: A) => Promise<CallToolResult> {
  const audit = (outcome: CallOutcome, detail?: string) =>
    deps.audit.record({ tokenId: caller.id, person: tokenPerson(caller).id, origin: tokenOrigin(caller), tool, outcome, detail });
  return async (args) => {
    const gone = await deps.recheck?.();
    if (gone) {
      audit('unauthenticated', gone);
      return toolError(`Refused: ${gone}. Nothing changed.`);
    }
    if (!scopeAllows(caller.scope, needs)) {
      audit('refused', `scope ${caller.scope}`);
      // A client that got its token through OAuth can fix this itself: the person allows more.
      const how = caller.client ? ' Authorize again and ask the person to allow proposing.' : '';
      return toolError(`Refused: this token's scope is "${caller.scope}"; ${tool} needs a "${needs}" token. Nothing changed.${how}`);
    }
    if (!(await deps.tokens.withinRate(caller.id, deps.ratePerMinute))) {
      audit('rate-limited');
      return toolError(`Too many calls: a token may make ${deps.ratePerMinute} calls a minute. Wait a minute and try again.`);
    }
    try {
      const answer = await run(args);
      audit(answer.outcome);
      const result: CallToolResult = { content: [{ type: 'text', text: answer.text }] };
      if (answer.outcome !== 'ok') result.isError = true;
      if (answer.structured) result.structuredContent = answer.structured;
      return result;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      deps.log.error({ token: caller.id, tool, error: message.slice(0, 300) }, 'assistant call failed');
      audit('error');
      return toolError(`${tool} failed on the server; nothing changed. Try again, or ask an operator to read helmcrew's log.`);
    }
  };
}
