/**
 * The requests Slack sends to an app in HTTP mode, for the bot's tests, benchmark and the demo:
 * slash commands and button clicks as forms (each with a fresh response_url on the fake), signed
 * with the v0 scheme (HMAC-SHA256 over "v0:<timestamp>:<body>" with the signing secret).
 */
import { createHmac } from 'node:crypto';
import { FAKE_APP, type FakeSlack } from './fake-slack.js';
import { FAKE_APP_ID } from './socket-mode.js';

export interface SlackRequest {
  /** The form Slack POSTs to the app's request URL. */
  form: Record<string, string>;
  /** Where the app answers (a response_url on the fake). */
  responseUrl: string;
}

export function slackSignature(secret: string, timestamp: number, body: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
}

export async function postSigned(
  url: string,
  form: Record<string, string>,
  opts: { secret: string; timestamp?: number; signature?: string },
): Promise<{ status: number; body: string; ms: number }> {
  const body = new URLSearchParams(form).toString();
  const timestamp = opts.timestamp ?? Math.floor(Date.now() / 1000);
  const started = performance.now();
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-slack-request-timestamp': String(timestamp),
      'x-slack-signature': opts.signature ?? slackSignature(opts.secret, timestamp, body),
    },
    body,
  });
  const text = await response.text();
  return { status: response.status, body: text, ms: performance.now() - started };
}

function channelOf(slack: FakeSlack, ref: string): { id: string; name: string } {
  const channel = slack.channel(ref);
  if (!channel) throw new Error(`the fake Slack has no channel ${ref}`);
  return channel;
}

/** `/release <text>` typed by `user` in `channel` (ID or name). */
export function slashCommand(slack: FakeSlack, text: string, user: string, channel: string): SlackRequest {
  const { id, name } = channelOf(slack, channel);
  const responseUrl = slack.createResponseUrl({ channel: id, user });
  const form = {
    token: 'legacy-unused',
    team_id: FAKE_APP.teamId,
    team_domain: FAKE_APP.team,
    channel_id: id,
    channel_name: name,
    user_id: user,
    user_name: user.toLowerCase(),
    command: '/release',
    text,
    response_url: responseUrl,
    trigger_id: '1.2.3',
    api_app_id: FAKE_APP_ID,
  };
  return { form, responseUrl };
}

/** A click on a button (`actionId`, `value`) in a message `user` sees in `channel`. */
export function buttonClick(
  slack: FakeSlack,
  actionId: string,
  value: string,
  user: string,
  channel: string,
): SlackRequest & { payload: Record<string, unknown> } {
  const { id, name } = channelOf(slack, channel);
  const responseUrl = slack.createResponseUrl({ channel: id, user });
  const payload = {
    type: 'block_actions',
    team: { id: FAKE_APP.teamId, domain: FAKE_APP.team },
    user: { id: user, username: user.toLowerCase(), team_id: FAKE_APP.teamId },
    api_app_id: FAKE_APP_ID,
    token: 'legacy-unused',
    container: { type: 'message', message_ts: '1.1', channel_id: id, is_ephemeral: true },
    trigger_id: '1.2.3',
    channel: { id, name },
    response_url: responseUrl,
    actions: [{ type: 'button', action_id: actionId, block_id: 'b1', value, text: { type: 'plain_text', text: 'x' }, action_ts: String(Date.now() / 1000) }],
  };
  return { form: { payload: JSON.stringify(payload) }, payload, responseUrl };
}
