import type { App, RespondFn, SocketModeReceiver } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { Logger } from '../../core/log.js';
import { inSpan } from '../../core/tracing/tracing.js';
import { CLUSTER_CHOICE_ACTION_PATTERN, PlanAction, ProposalAction, RELEASE_ACTION_IDS, releaseActionVerb } from '../../core/slack/action-ids.js';
import { unescapeSlackText } from '../../core/slack/mrkdwn.js';
import { buttonVerb, commandVerb, type BotMetrics } from '../metrics/bot-metrics.js';
import { textMessage, type SlackMessage } from './blocks.js';
import type { ReleaseBot } from './release-bot.js';
import type { RequestContext } from './slack-ports.js';

/**
 * Bolt's listeners: the slash command, an @-mention, and the buttons. Each acks first and works
 * after, so Slack's 3-second limit holds however slow the cluster is; a failure is told to the
 * person and logged, never thrown at Bolt.
 */

/** Whether the Socket Mode client's WebSocket is open (its `websocket` is replaced on each reconnect). */
export function socketOpen(receiver: SocketModeReceiver): boolean {
  const ws = (receiver.client as unknown as { websocket?: { isActive?: () => boolean } }).websocket;
  return ws?.isActive?.() ?? false;
}

export function registerListeners(app: App, bot: ReleaseBot, web: WebClient, log: Logger, metrics: BotMetrics): void {
  const viaResponseUrl = (respond: RespondFn, user: string, channel: string): RequestContext => ({
    user,
    channel,
    reply: async (message: SlackMessage) => void (await respond({ response_type: 'ephemeral', replace_original: false, ...message })),
  });
  /** Work after the ack; a failure is told to the person and logged, never thrown at Bolt. */
  /** Each request is its own trace when tracing is on: its verb and how it came, never who asked or the text. */
  const work = (ctx: RequestContext, what: string, labels: { verb: string; via: string }, fn: () => Promise<void>) =>
    inSpan('chat.command', { 'helmcrew.verb': labels.verb, 'helmcrew.via': labels.via }, fn, { root: true, kind: 'server' }).then(
      () => metrics.handled(labels.verb, labels.via, 'handled'),
      async (error: unknown) => {
        metrics.handled(labels.verb, labels.via, 'error');
        log.error({ err: error, actor: `slack:${ctx.user}`, what }, 'bot request failed');
        await ctx.reply(textMessage(`Something went wrong (${what}); nothing was confirmed. The bot's log has the details.`)).catch(() => undefined);
      },
    );
  /** Times Slack's ack: Slack gives up after 3 s. */
  const timedAck = async (via: string, ack: () => Promise<void>) => {
    const started = performance.now();
    await ack();
    metrics.acked(via, (performance.now() - started) / 1000);
  };

  app.command('/release', async ({ command, ack, respond }) => {
    await timedAck('command', ack);
    const ctx = viaResponseUrl(respond, command.user_id, command.channel_id);
    const text = unescapeSlackText(command.text);
    await work(ctx, 'command', { verb: commandVerb(text), via: 'command' }, () => bot.handleText(text, ctx));
  });

  // Slash commands do not work in threads; "@helmcrew rollback unicorn" does.
  app.event('app_mention', async ({ event, context }) => {
    const user = event.user;
    if (!user) return;
    const text = event.text.replace(new RegExp(`<@${context.botUserId ?? 'U[A-Z0-9]+'}>`, 'g'), ' ');
    const ctx: RequestContext = {
      user,
      channel: event.channel,
      reply: async (message) =>
        void (await web.chat.postEphemeral({ channel: event.channel, user, ...(event.thread_ts ? { thread_ts: event.thread_ts } : {}), ...message })),
    };
    const command = unescapeSlackText(text);
    await work(ctx, 'mention', { verb: commandVerb(command), via: 'mention' }, () => bot.handleText(command, ctx));
  });

  const button = (actionId: string | RegExp, handle: (value: string, actionId: string, ctx: RequestContext) => Promise<void>) =>
    app.action(actionId, async ({ ack, body, action, respond }) => {
      await timedAck('button', ack);
      if (body.type !== 'block_actions' || action.type !== 'button' || !('action_id' in action)) return;
      const ctx = viaResponseUrl(respond, body.user.id, body.channel?.id ?? '');
      await work(ctx, action.action_id, { verb: buttonVerb(action.action_id), via: 'button' }, () => handle(action.value ?? '', action.action_id, ctx));
    });
  button(PlanAction.Confirm, (planId, _, ctx) => bot.confirm(planId, ctx));
  button(PlanAction.Cancel, (planId, _, ctx) => bot.cancel(planId, ctx));
  button(PlanAction.Approve, (planId, _, ctx) => bot.approve(planId, ctx));
  // A proposal's votes (issue 35): the value names the cluster and the proposal.
  button(ProposalAction.Approve, (value, _, ctx) => bot.voteOnProposal(value, 'approve', ctx));
  button(ProposalAction.Reject, (value, _, ctx) => bot.voteOnProposal(value, 'reject', ctx));
  // A notification's button is the same as typing the command: plan, confirm, act.
  // "Which cluster?": the button carries the whole command for that cluster.
  button(CLUSTER_CHOICE_ACTION_PATTERN, (text, _, ctx) => bot.handleText(text, ctx));
  for (const id of RELEASE_ACTION_IDS) button(id, (release, actionId, ctx) => bot.handleText(`${releaseActionVerb(actionId)} ${release}`, ctx));

  // Bolt wants a promise back; logging is all there is to do.
  app.error((error) => {
    log.error({ err: error }, 'bolt error');
    return Promise.resolve();
  });
}
