import { ConfigError } from '../../../core/config/env.js';

/** Slack settings from the environment. The token is never echoed, not even in errors. */
export interface SlackConfig {
  botToken: string;
  /** Web API base URL (SLACK_API_URL), for proxies and the local fake; WebClient's default otherwise. */
  apiUrl?: string;
  /** Per-call timeout. */
  timeoutMs: number;
}

type Env = Record<string, string | undefined>;

/** undefined when SLACK_BOT_TOKEN is not set: Slack channels then fail with a clear permanent error. */
export function readSlackConfig(env: Env = process.env): SlackConfig | undefined {
  const botToken = env.SLACK_BOT_TOKEN?.trim();
  if (!botToken) return undefined;
  if (/\s/.test(botToken)) throw new ConfigError('SLACK_BOT_TOKEN must be a single token without spaces');
  const rawUrl = env.SLACK_API_URL?.trim();
  let apiUrl: string | undefined;
  if (rawUrl) {
    let url: URL;
    try {
      url = new URL(rawUrl);
    } catch {
      throw new ConfigError(`SLACK_API_URL must be an http(s) URL, got "${rawUrl}"`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`SLACK_API_URL must be an http(s) URL, got "${rawUrl}"`);
    apiUrl = url.href.endsWith('/') ? url.href : `${url.href}/`;
  }
  const rawTimeout = env.SLACK_TIMEOUT_MS;
  const timeoutMs = rawTimeout ? Number(rawTimeout) : 10_000;
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw new ConfigError(`SLACK_TIMEOUT_MS must be a positive whole number, got "${rawTimeout}"`);
  return { botToken, apiUrl, timeoutMs };
}
