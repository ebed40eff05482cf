import { clusterChoiceActionId, PlanAction, ReleaseAction } from '../../core/slack/action-ids.js';
import { personText } from '../../core/slack/proposal-message.js';
import { commandForCluster } from '../../session/fleet/which-cluster.js';
import { codeBlock, escapeMrkdwn, truncateEscaped } from '../../core/slack/mrkdwn.js';
import type { Plan } from '../../session/plan/plan.js';

/** Pure Slack message builders. Every piece of user-supplied text is escaped for mrkdwn (core/slack). */

/** A section holds at most 3000 characters; the title line and fences need the rest. */
const CODE_MAX = 2806;

export interface SlackMessage {
  text: string;
  blocks?: unknown[];
}

const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text } });

export function textMessage(text: string): SlackMessage {
  return { text: escapeMrkdwn(text), blocks: [section(escapeMrkdwn(text))] };
}

/** `link`: a `<url|page>` of the release the answer is about (core/links), put after the title. */
export function codeMessage(title: string, body: string, link?: string): SlackMessage {
  const text = `${escapeMrkdwn(title)}${link ? ` · ${link}` : ''}\n${codeBlock(body, CODE_MAX)}`;
  return { text, blocks: [section(text)] };
}

/** Escaped text cut to `max`, never inside an entity, with where to read the rest. */
function clip(escaped: string, max: number): string {
  return escaped.length <= max ? escaped : `${truncateEscaped(escaped, max - 40)}\n… (\`/release diff\` shows all)`;
}

/**
 * A plan line in mrkdwn: a bullet, or for a line indented under another (an object diff's changed
 * fields and lines) its indent as em spaces, which Slack keeps, and no bullet.
 */
export function planLine(line: string): string {
  const indent = line.length - line.trimStart().length;
  return indent === 0 ? `• ${escapeMrkdwn(line)}` : `${'\u2003'.repeat(Math.ceil(indent / 2))}${escapeMrkdwn(line.trimStart())}`;
}

/** `diffLink`: the whole diff on the web (when the chat form left some of it out), named above the rest. */
export function planMessage(plan: Plan, planId: string | undefined, needsApproval: boolean, link?: string, diffLink?: string): SlackMessage {
  const body = [
    `*Plan: ${escapeMrkdwn(plan.title)}*${link ? ` · ${link}` : ''}`,
    ...plan.lines.map(planLine),
    ...plan.warnings.map((w) => `:warning: ${escapeMrkdwn(w)}`),
    ...(needsApproval ? ['_Two-person rule: after you confirm, a second authorized person must approve._'] : []),
  ].join('\n');
  const blocks: unknown[] = [section(body)];
  // The rest of a long object diff, under the plan (a section holds at most 3000 characters).
  if (plan.more?.length)
    blocks.push(section(clip([`_More changes${diffLink ? ` (${diffLink}, page by page)` : ''}:_`, ...plan.more.map(planLine)].join('\n'), 2900)));
  if (planId && plan.doable) {
    blocks.push({
      type: 'actions',
      elements: [
        { type: 'button', action_id: PlanAction.Confirm, style: 'danger', text: { type: 'plain_text', text: 'Confirm' }, value: planId },
        { type: 'button', action_id: PlanAction.Cancel, text: { type: 'plain_text', text: 'Cancel' }, value: planId },
      ],
    });
  }
  return { text: `Plan: ${escapeMrkdwn(plan.title)}`, blocks };
}

/** Slack's limit on a button's value; a longer command is asked without buttons. */
const BUTTON_VALUE_MAX = 2000;

/** A fleet's "which cluster?": one button per cluster, each the same command for that cluster. */
export function whichClusterMessage(question: string, text: string, clusters: readonly string[]): SlackMessage {
  const values = clusters.map((cluster) => ({ cluster, value: commandForCluster(text, cluster) }));
  const fits = values.every((v) => v.value.length <= BUTTON_VALUE_MAX) && values.length <= 25;
  const body = escapeMrkdwn(fits ? question : `${question} Add --cluster NAME.`);
  const blocks: unknown[] = [section(body)];
  if (fits)
    blocks.push({
      type: 'actions',
      elements: values.map(({ cluster, value }) => ({
        type: 'button',
        action_id: clusterChoiceActionId(cluster),
        text: { type: 'plain_text', text: cluster },
        value,
      })),
    });
  return { text: body, blocks };
}

/**
 * The in-channel record of who did what and why, updated with the outcome. Once the outcome is
 * in, `next` offers what people do next: Status, and Resume for a release left suspended. `approver`: a Slack id or an actor id, or
 * several joined by ", " (an assistant's proposal may take two approvals).
 */
export function auditMessage(
  actorUser: string,
  title: string,
  reason: string | undefined,
  state: string,
  approver?: string,
  next?: { release: string; suspended: boolean },
): SlackMessage {
  const text = `<@${actorUser}> ${escapeMrkdwn(title)}${approver ? ` (approved by ${approver.split(/,\s*/).map(personText).join(', ')})` : ''}${reason ? ` — _${escapeMrkdwn(reason)}_` : ''}\n${escapeMrkdwn(state)}`;
  const blocks: unknown[] = [section(text)];
  if (next) {
    const button = (action_id: string, label: string) => ({ type: 'button', action_id, text: { type: 'plain_text', text: label }, value: next.release });
    blocks.push({ type: 'actions', elements: [...(next.suspended ? [button(ReleaseAction.Resume, 'Resume')] : []), button(ReleaseAction.Status, 'Status')] });
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
