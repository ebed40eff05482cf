import { LogLevel, WebClient, type KnownBlock, type Logger as SlackLogger } from '@slack/web-api';
import type { Logger } from '../../../core/log.js';
import type { SlackConfig } from './config.js';
import type { Block, RenderedMessage } from './render.js';

// The Slack provider's side of the Web API: the client as notify wants it, and its message bodies.

/** A WebClient that never retries or waits by itself: the notify queue retries, in order per release, and paces every call. */
export function notifyWebClient(config: SlackConfig, log: Logger): WebClient {
  return new WebClient(config.botToken, {
    ...(config.apiUrl ? { slackApiUrl: config.apiUrl } : {}),
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: config.timeoutMs,
    logger: webClientLogger(log),
  });
}

/** The message's content: the summary as text, the blocks inside an attachment for the colour bar. */
export function messageBody(rendered: RenderedMessage) {
  return { text: rendered.text, attachments: [{ color: rendered.color, fallback: rendered.text, blocks: asSlackBlocks(rendered.blocks) }] };
}

/** The renderer builds plain JSON (checked against Slack's limits by the tests), not the SDK's types. */
export function asSlackBlocks(blocks: Block[]): KnownBlock[] {
  return blocks as unknown as KnownBlock[];
}

/** WebClient's own log lines go to ours at warn and above (they never include the token). */
function webClientLogger(log: Logger): SlackLogger {
  const child = log.child({ component: 'slack-web-api' });
  return {
    debug: () => undefined,
    info: () => undefined,
    warn: (...msg: unknown[]) => child.warn(msg.map(String).join(' ')),
    error: (...msg: unknown[]) => child.error(msg.map(String).join(' ')),
    setLevel: () => undefined,
    getLevel: () => LogLevel.WARN,
    setName: () => undefined,
  };
}
