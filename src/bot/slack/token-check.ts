import { WebClient } from '@slack/web-api';
import { ConfigError } from '../../core/config/env.js';
import type { BotConfig } from './config.js';

/**
 * One quick check at start-up (the normal client retries for minutes): a wrong token or an
 * unreachable SLACK_API_URL stops start-up with one line.
 */
export async function checkBotToken(config: BotConfig): Promise<void> {
  const clientOptions = config.slackApiUrl ? { slackApiUrl: config.slackApiUrl } : {};
  try {
    await new WebClient(config.botToken, { ...clientOptions, retryConfig: { retries: 0 }, timeout: 10_000 }).auth.test();
  } catch (error) {
    const code = (error as { data?: { error?: string } }).data?.error;
    if (code) throw new ConfigError(`SLACK_BOT_TOKEN was not accepted by the Slack Web API: ${code}`);
    throw new ConfigError(`the Slack Web API${config.slackApiUrl ? ` at SLACK_API_URL` : ''} could not be reached: ${(error as Error).message}`);
  }
}
