import type { Plan } from '../plan/plan.js';

/** Pure Slack message builders. Every piece of user-supplied text is escaped for mrkdwn. */

export const ACTION_CONFIRM = 'release_confirm';
export const ACTION_CANCEL = 'release_cancel';
export const ACTION_APPROVE = 'release_approve';
/** The same ids as notify's buttons: a click is the command typed (`resume ns/name`, `status ns/name`). */
export const ACTION_RESUME = 'release_resume';
export const ACTION_STATUS = 'release_status';

/** Slack's three control characters; escaping them stops <!channel> and <@U…> from pinging anyone. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Slack sends typed text with &, < and > as entities; the grammar gets what the person typed. */
export function unescapeSlackText(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

export interface SlackMessage {
  text: string;
  blocks?: unknown[];
}

const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text } });

export function textMessage(text: string): SlackMessage {
  return { text: escapeMrkdwn(text), blocks: [section(escapeMrkdwn(text))] };
}

export function codeMessage(title: string, body: string): SlackMessage {
  const text = `${escapeMrkdwn(title)}\n\`\`\`${escapeMrkdwn(body).slice(0, 2800)}\`\`\``;
  return { text, blocks: [section(text)] };
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 40)}\n… (\`/release diff\` shows all)`;
}

export function planMessage(plan: Plan, planId: string | undefined, needsApproval: boolean): SlackMessage {
  const body = [
    `*Plan: ${escapeMrkdwn(plan.title)}*`,
    ...plan.lines.map((l) => `• ${escapeMrkdwn(l)}`),
    ...plan.warnings.map((w) => `:warning: ${escapeMrkdwn(w)}`),
    ...(needsApproval ? ['_Two-person rule: after you confirm, a second authorized person must approve._'] : []),
  ].join('\n');
  const blocks: unknown[] = [section(body)];
  // The rest of a long object diff, under the plan (a section holds at most 3000 characters).
  if (plan.more?.length) blocks.push(section(clip(['_More changes:_', ...plan.more.map((l) => `• ${escapeMrkdwn(l)}`)].join('\n'), 2900)));
  if (planId && plan.doable) {
    blocks.push({
      type: 'actions',
      elements: [
        { type: 'button', action_id: ACTION_CONFIRM, style: 'danger', text: { type: 'plain_text', text: 'Confirm' }, value: planId },
        { type: 'button', action_id: ACTION_CANCEL, text: { type: 'plain_text', text: 'Cancel' }, value: planId },
      ],
    });
  }
  return { text: `Plan: ${escapeMrkdwn(plan.title)}`, blocks };
}

export function approvalRequestMessage(requester: string, plan: Plan, planId: string, reason?: string): SlackMessage {
  const text = `<@${requester}> asks to *${escapeMrkdwn(plan.title)}*${reason ? `: ${escapeMrkdwn(reason)}` : ''}. A second authorized person must approve.`;
  return {
    text,
    blocks: [
      section([text, ...plan.lines.map((l) => `• ${escapeMrkdwn(l)}`)].join('\n')),
      {
        type: 'actions',
        elements: [{ type: 'button', action_id: ACTION_APPROVE, style: 'danger', text: { type: 'plain_text', text: 'Approve' }, value: planId }],
      },
    ],
  };
}

/**
 * The in-channel record of who did what and why, updated with the outcome. Once the outcome is
 * in, `next` offers what people do next: Status, and Resume for a release left suspended.
 */
export function auditMessage(
  actorUser: string,
  title: string,
  reason: string | undefined,
  state: string,
  approver?: string,
  next?: { release: string; suspended: boolean },
): SlackMessage {
  const text = `<@${actorUser}> ${escapeMrkdwn(title)}${approver ? ` (approved by <@${approver}>)` : ''}${reason ? ` — _${escapeMrkdwn(reason)}_` : ''}\n${escapeMrkdwn(state)}`;
  const blocks: unknown[] = [section(text)];
  if (next) {
    const button = (action_id: string, label: string) => ({ type: 'button', action_id, text: { type: 'plain_text', text: label }, value: next.release });
    blocks.push({ type: 'actions', elements: [...(next.suspended ? [button(ACTION_RESUME, 'Resume')] : []), button(ACTION_STATUS, 'Status')] });
  }
  return { text, blocks };
}

/** How a freeze ended, for its channel message. */
export type FreezeEnding = { liftedBy: string } | { expiredAt: string } | { deleted: true };

const endingText = (ending: FreezeEnding) =>
  'liftedBy' in ending
    ? `lifted by <@${ending.liftedBy}>`
    : 'expiredAt' in ending
      ? `expired (until ${escapeMrkdwn(ending.expiredAt)})`
      : 'lifted: its Freeze was deleted outside chat';

/** The freeze's own channel message once it ended (lifted from chat, expired, deleted): how, what it held and what then happened. */
export function freezeLiftedMessage(
  freeze: { name: string; reason: string; setBy?: string },
  ending: FreezeEnding,
  outcomes: Array<{ succeeded: boolean; done: boolean; message: string }>,
): SlackMessage {
  const header = `:unlock: Freeze ${escapeMrkdwn(freeze.name)} (${escapeMrkdwn(freeze.reason)}${freeze.setBy ? `, set by ${escapeMrkdwn(freeze.setBy)}` : ''}) ${endingText(ending)}`;
  const lines = outcomes.length
    ? ['It held, and then:', ...outcomes.map((o) => `${o.done ? (o.succeeded ? ':white_check_mark:' : ':x:') : ':hourglass:'} ${escapeMrkdwn(o.message)}`)]
    : ['It held no release that is free now.'];
  const text = [header, ...lines].join('\n');
  return { text, blocks: [section(text)] };
}
