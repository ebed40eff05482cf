import { PlanAction } from '../../core/slack/action-ids.js';
import { escapeMrkdwn } from '../../core/slack/mrkdwn.js';
import { personText } from '../../core/slack/proposal-message.js';
import type { Plan } from '../plan/plan.js';

/**
 * Pure: the Slack message that asks a second person to approve a stored plan, with its Approve
 * button (and Cancel, for the requester, on an assistant's proposal). One builder for every part
 * that posts it: the bot (a person's plan under the two-person rule) and the assistants' surface
 * (a proposal, posted in the Teams' channels). Every text a person typed is escaped.
 */

export interface ApprovalRequest {
  /** The requester's Slack user id. */
  requester: string;
  plan: Plan;
  planId: string;
  reason?: string;
  /** Proposed by an assistant holding the requester's token. */
  viaAssistant?: boolean;
  /** The plan's page on the web (`<HELMCREW_WEB_URL>/plans/<id>`). */
  link?: string;
  /** How many approvals it needs (default 1) and who approved so far (actor ids). */
  approvals?: { needed: number; by: string[] };
}

/** How a request ended, for the update of its message (buttons then go). */
export type ApprovalEnd = { kind: 'approved'; by: string[] } | { kind: 'cancelled'; by: string };

const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text } });
const button = (action_id: string, text: string, value: string, style?: 'danger') => ({
  type: 'button',
  action_id,
  ...(style ? { style } : {}),
  text: { type: 'plain_text', text },
  value,
});

function stillNeeded(approvals: ApprovalRequest['approvals']): string {
  const needed = approvals?.needed ?? 1;
  const by = approvals?.by ?? [];
  if (needed <= 1) return 'A second authorized person must approve.';
  const so = by.length ? ` Approved so far by ${by.map(personText).join(', ')}.` : '';
  return `It needs ${needed} approvals from other authorized people.${so}`;
}

export function approvalRequestMessage(request: ApprovalRequest, end?: ApprovalEnd): { text: string; blocks: unknown[] } {
  const { requester, plan, planId, reason, viaAssistant, link, approvals } = request;
  const title = `*${escapeMrkdwn(plan.title)}*`;
  const head = viaAssistant
    ? `Proposed by <@${requester}> via an assistant: ${title}${reason ? ` — ${escapeMrkdwn(reason)}` : ''}.`
    : `<@${requester}> asks to ${title}${reason ? `: ${escapeMrkdwn(reason)}` : ''}.`;
  const state = !end
    ? stillNeeded(approvals)
    : end.kind === 'approved'
      ? `:white_check_mark: Approved by ${end.by.map(personText).join(', ')}; the change is on its way.`
      : `:no_entry_sign: Cancelled by ${personText(end.by)}; nothing changed.`;
  const text = `${head} ${state}${link ? ` <${link}|The plan on the web>` : ''}`;
  const blocks: unknown[] = [section([text, ...plan.lines.map((l) => `• ${escapeMrkdwn(l)}`)].join('\n'))];
  if (!end)
    blocks.push({
      type: 'actions',
      elements: [
        button(PlanAction.Approve, 'Approve', planId, 'danger'),
        // Only an assistant's proposal can be withdrawn while it waits (by its requester); a person's plan was confirmed already.
        ...(viaAssistant ? [button(PlanAction.Cancel, 'Cancel', planId)] : []),
      ],
    });
  return { text, blocks };
}
