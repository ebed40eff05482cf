import { createHmac } from 'node:crypto';

/**
 * Sends a request the way Slack does: a form body signed with the v0 scheme
 * (HMAC-SHA256 over "v0:<timestamp>:<body>" with the signing secret).
 */
export function slackSignature(secret: string, timestamp: number, body: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex')}`;
}

export async function postSigned(url: string, form: Record<string, string>, opts: { secret: string; timestamp?: number; signature?: string }): Promise<{ status: number; body: string; ms: number }> {
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

export function slashCommand(text: string, user: string, channel: string, responseUrl: string): Record<string, string> {
  return { token: 'legacy-unused', team_id: 'T0FAKE', channel_id: channel, channel_name: 'incident', user_id: user, user_name: user.toLowerCase(), command: '/release', text, response_url: responseUrl, trigger_id: '1.2.3', api_app_id: 'A0APP' };
}

export function buttonClick(actionId: string, value: string, user: string, channel: string, responseUrl: string): Record<string, string> {
  const payload = {
    type: 'block_actions',
    team: { id: 'T0FAKE', domain: 'fake' },
    user: { id: user, username: user.toLowerCase(), team_id: 'T0FAKE' },
    api_app_id: 'A0APP',
    token: 'legacy-unused',
    container: { type: 'message', message_ts: '1.1', channel_id: channel, is_ephemeral: true },
    trigger_id: '1.2.3',
    channel: { id: channel, name: 'incident' },
    response_url: responseUrl,
    actions: [{ type: 'button', action_id: actionId, block_id: 'b1', value, text: { type: 'plain_text', text: 'x' }, action_ts: String(Date.now() / 1000) }],
  };
  return { payload: JSON.stringify(payload) };
}
