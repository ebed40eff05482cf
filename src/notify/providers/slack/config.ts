import { ConfigError } from '../../../core/config/env.js';

/** Slack settings from the environment. The token is never echoed, not even in errors. */
export interface SlackConfig {
  botToken: string;
  /** Web API base URL (SLACK_API_URL), for proxies and the local fake; WebClient's default otherwise. */
  apiUrl?: string;
  /** Per-call timeout. */
  timeoutMs: number;
  /**
   * chat.update is Slack's Tier 3 (about 50 a minute for the whole workspace): notify's share,
   * one bucket in Redis for every replica. Below 50 so the bot and other apps keep some.
   */
  updatePerMinute?: number;
  updateBurst?: number;
}

export const DEFAULT_UPDATE_PER_MINUTE = 45;
export const DEFAULT_UPDATE_BURST = 40;

function positive(env: Env, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new ConfigError(`${name} must be a positive number, got "${raw}"`);
  return value;
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
  const updatePerMinute = positive(env, 'HELMCREW_SLACK_UPDATE_PER_MINUTE', DEFAULT_UPDATE_PER_MINUTE);
  const updateBurst = Math.max(1, Math.floor(positive(env, 'HELMCREW_SLACK_UPDATE_BURST', DEFAULT_UPDATE_BURST)));
  return { botToken, apiUrl, timeoutMs, updatePerMinute, updateBurst };
}
