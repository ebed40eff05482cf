import { approvalChannels } from '../session/authz/approval-channels.js';
import type { TeamPolicy } from '../session/authz/policy-types.js';
import type { PreparedAction } from '../session/plan/prepared.js';
import { approvalRequestMessage } from '../session/render/approval-request.js';
import type { McpDeps } from './mcp-deps.js';

/**
 * A stored proposal told in Slack: the approval request (Approve, and Cancel for its requester) in
 * the channels of the Teams that may approve it, saying it came through an assistant and linking
 * its web page. Where it went is kept on the plan, so the click that ends it updates those
 * messages. A channel Slack refuses is logged and skipped: the proposal stands, its link works.
 */
export async function announceProposal(
  deps: Pick<McpDeps, 'slack' | 'proposals' | 'log'>,
  proposal: { planId: string; action: PreparedAction; requester: string; needed: number; link?: string },
  teams: TeamPolicy[],
): Promise<string[]> {
  if (!deps.slack) return [];
  const { planId, action, requester, needed, link } = proposal;
  const message = approvalRequestMessage({
    requester,
    plan: action.plan,
    planId,
    viaAssistant: true,
    approvals: { needed, by: [] },
    ...(action.command.reason ? { reason: action.command.reason } : {}),
    ...(link ? { link } : {}),
  });
  const posted: { channel: string; ts: string }[] = [];
  for (const channel of approvalChannels(action, teams)) {
    try {
      posted.push({ channel, ts: (await deps.slack.post(channel, message)).ts });
    } catch (error) {
      deps.log.warn(
        { plan: planId, channel, error: error instanceof Error ? error.message.slice(0, 200) : String(error) },
        'a proposal could not be posted in Slack',
      );
    }
  }
  if (posted.length) await deps.proposals.update(planId, (plan) => ({ ...plan, approvalMessages: posted }));
  return posted.map((p) => p.channel);
}
