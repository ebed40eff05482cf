import type { App, RespondFn } from '@slack/bolt';
import type { Logger } from '../../core/log.js';
import { isOurActionId } from '../../core/slack/action-ids.js';
import { textMessage } from './blocks.js';

/**
 * Answers to the requests Slack may send that this version has no listener for: another slash
 * command routed to this app, a button from a message of an older or newer version (or none of
 * ours), a shortcut or message action, an options request, a modal. Each is acked at once, with a
 * clear ephemeral answer where Slack gives a place to show one, so Slack never reports that the
 * app "didn't respond". What Bolt cannot even classify is answered by answer-every-request.ts.
 */

const HELP = '`/release help` lists what helmcrew does.';
/** A name quoted back to the person: at most 60 characters of it. */
const quoted = (value: unknown) => {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return `\`${text.length > 60 ? `${text.slice(0, 60)}…` : text}\``;
};

/** Pure: the answer to a slash command that is not /release. */
export function unknownCommandMessage(command: unknown) {
  return { response_type: 'ephemeral' as const, ...textMessage(`helmcrew answers /release only, not ${quoted(command)}. ${HELP}`) };
}

/** Pure: the answer to a click on a button or menu this version does not handle. */
export function unknownActionMessage(actionId: unknown) {
  return textMessage(
    `This control (${quoted(actionId)}) is not one this version of helmcrew handles: the message may come from an older or newer version. Nothing changed. ${HELP}`,
  );
}

export const MESSAGE_ACTION_MESSAGE = textMessage(`helmcrew has no message shortcuts; nothing was done. ${HELP}`);

export function registerUnknownRequestAnswers(app: App, log: Logger): void {
  /** After the ack: the answer on the response_url, when the payload had one; a failure is only logged. */
  const tell = async (respond: RespondFn | undefined, message: ReturnType<typeof textMessage>, what: Record<string, unknown>) => {
    log.info(what, 'a Slack request this version does not handle: answered');
    if (!respond) return;
    await respond({ response_type: 'ephemeral', replace_original: false, ...message }).catch((error: unknown) =>
      log.warn({ err: error, ...what }, 'could not answer on the response_url'),
    );
  };

  app.command(/^(?!\/release$)/, async ({ command, ack }) => {
    await ack(unknownCommandMessage(command.command));
    log.info({ command: String(command.command).slice(0, 60) }, 'a slash command other than /release: answered');
  });

  // Every block action; ours are answered by their own listeners (listeners.ts).
  app.action({ type: 'block_actions' }, async ({ action, ack, respond }) => {
    const actionId = (action as { action_id?: unknown } | undefined)?.action_id;
    if (isOurActionId(actionId)) return;
    await ack();
    await tell(respond, unknownActionMessage(actionId), { kind: 'block_actions', actionId: String(actionId).slice(0, 60) });
  });

  // Global shortcuts (no place to answer) and message actions (a response_url).
  app.shortcut({}, async ({ body, ack, respond }) => {
    await ack();
    if (body.type === 'message_action') await tell(respond, MESSAGE_ACTION_MESSAGE, { kind: body.type });
    else log.info({ kind: body.type }, 'a Slack request this version does not handle: answered');
  });

  // An external select asking for its options: none.
  app.options({}, async ({ ack }) => ack({ options: [] }));

  // helmcrew opens no modals: a submission or close of one is acked (a submission closes it).
  app.view({ type: 'view_submission' }, async ({ ack }) => ack());
  app.view({ type: 'view_closed' }, async ({ ack }) => ack());
}
