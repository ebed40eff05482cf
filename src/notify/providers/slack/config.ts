import { ConfigError, SHARED_ENV } from '../../../core/config/env.js';
import { declareEnv } from '../../../core/config/registry.js';
import { readWebUrl } from '../../../core/links/web-url.js';

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
  /**
   * The longest an operation's outcome (or an error) waits for its edit before it is said in the
   * channel at once, as a thread reply also sent to the channel; the edit follows in its turn.
   */
  outcomeWaitMs?: number;
  /** HELMCREW_WEB_URL: each message links to its release's page there; unset, nothing is linked. */
  webUrl?: string;
}

/** The Slack provider's own variables (SLACK_BOT_TOKEN and SLACK_API_URL are shared with the bot). */
export const SLACK_NOTIFY_ENV = declareEnv(['notify'], {
  SLACK_TIMEOUT_MS: { default: 10_000, meaning: 'time-out of one Slack Web API call' },
  HELMCREW_SLACK_UPDATE_PER_MINUTE: {
    default: 45,
    meaning: 'notify’s share of `chat.update` (Slack’s Tier 3, about 50 a minute per workspace), one bucket in Redis for every replica',
  },
  HELMCREW_SLACK_UPDATE_BURST: { default: 40, meaning: 'the burst of `chat.update` calls allowed above that rate' },
  HELMCREW_SLACK_OUTCOME_WAIT_SECONDS: {
    default: 2,
    meaning:
      'the longest an outcome or an error waits for its `chat.update` slot; when the workspace’s edits are further behind, it is posted at once as a thread reply also sent to the channel, and the message is edited in its turn',
  },
});

export const DEFAULT_UPDATE_PER_MINUTE = SLACK_NOTIFY_ENV.fallback('HELMCREW_SLACK_UPDATE_PER_MINUTE');
export const DEFAULT_UPDATE_BURST = SLACK_NOTIFY_ENV.fallback('HELMCREW_SLACK_UPDATE_BURST');
export const DEFAULT_OUTCOME_WAIT_MS = SLACK_NOTIFY_ENV.fallback('HELMCREW_SLACK_OUTCOME_WAIT_SECONDS') * 1000;

function positive(env: Env, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new ConfigError(`${name} must be a positive number, got "${raw}"`);
  return value;
}

function nonNegative(env: Env, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new ConfigError(`${name} must be a number of seconds, 0 or more, got "${raw}"`);
  return value;
}

type Env = Record<string, string | undefined>;

/** undefined when SLACK_BOT_TOKEN is not set: Slack channels then fail with a clear permanent error. */
export function readSlackConfig(env: Env = process.env): SlackConfig | undefined {
  const shared = SHARED_ENV.in(env);
  const own = SLACK_NOTIFY_ENV.in(env);
  const botToken = shared.raw('SLACK_BOT_TOKEN')?.trim();
  if (!botToken) return undefined;
  if (/\s/.test(botToken)) throw new ConfigError('SLACK_BOT_TOKEN must be a single token without spaces');
  const rawUrl = shared.raw('SLACK_API_URL')?.trim();
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
  const rawTimeout = own.raw('SLACK_TIMEOUT_MS');
  const timeoutMs = rawTimeout ? Number(rawTimeout) : SLACK_NOTIFY_ENV.fallback('SLACK_TIMEOUT_MS');
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw new ConfigError(`SLACK_TIMEOUT_MS must be a positive whole number, got "${rawTimeout}"`);
  const updatePerMinute = own.parse('HELMCREW_SLACK_UPDATE_PER_MINUTE', positive);
  const updateBurst = Math.max(1, Math.floor(own.parse('HELMCREW_SLACK_UPDATE_BURST', positive)));
  const outcomeWaitMs = own.parse('HELMCREW_SLACK_OUTCOME_WAIT_SECONDS', nonNegative) * 1000;
  const webUrl = readWebUrl(env);
  return { botToken, apiUrl, timeoutMs, updatePerMinute, updateBurst, outcomeWaitMs, ...(webUrl ? { webUrl } : {}) };
}
