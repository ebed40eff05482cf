import { checkedRedisUrl, ConfigError } from '../../core/config/env.js';
import { intIn, readSessionConfig } from '../session/config.js';

/** `helmcrew bot` configuration from the environment; a bad value stops start-up naming the variable. */
export interface BotConfig {
  botToken: string;
  /** Socket Mode when set (no ingress needed); otherwise HTTP mode. */
  appToken?: string;
  signingSecret?: string;
  port: number;
  /** Web API base URL (ends with /), for proxies and tests. */
  slackApiUrl?: string;
  redisUrl: string;
  keyPrefix: string;
  kubeconfig?: string;
  /** How long a plan's Confirm button (and an approval request) stays valid. */
  planTtlSeconds: number;
  /** How long the bot waits for the controller's report before saying it is still pending. */
  outcomeTimeoutMs: number;
  /** How long a plan waits for the controller's object diff before it is shown without one. */
  previewTimeoutMs: number;
  /** The zone `--until 18:00` is read in (HELMCREW_TIME_ZONE). */
  timeZone: string;
  /** How often the bot looks at the Freezes it posted, to report the ones that ended by themselves or were deleted. */
  freezeSweepMs: number;
  /** /healthz, /readyz and /metrics when set (`helmcrew bot`; in `run` the controller's server serves them). */
  healthPort?: number;
}

type Env = Record<string, string | undefined>;

export function readBotConfig(env: Env = process.env): BotConfig {
  const botToken = env.SLACK_BOT_TOKEN;
  if (!botToken) throw new ConfigError('SLACK_BOT_TOKEN is not set (the bot token, xoxb-…)');
  if (!botToken.startsWith('xoxb-')) throw new ConfigError('SLACK_BOT_TOKEN must be a bot token starting with xoxb-');
  const appToken = env.SLACK_APP_TOKEN || undefined;
  if (appToken && !appToken.startsWith('xapp-')) throw new ConfigError('SLACK_APP_TOKEN must be an app-level token starting with xapp-');
  const signingSecret = env.SLACK_SIGNING_SECRET || undefined;
  if (!appToken && !signingSecret) throw new ConfigError('SLACK_SIGNING_SECRET is not set (needed in HTTP mode; set SLACK_APP_TOKEN for Socket Mode instead)');
  const redisUrl = checkedRedisUrl(env);
  // What the terminal's `helmcrew release` reads too (session/config.ts).
  const session = readSessionConfig(env);
  let slackApiUrl: string | undefined;
  if (env.SLACK_API_URL) {
    if (!/^https?:\/\/[^\s]+$/.test(env.SLACK_API_URL)) throw new ConfigError('SLACK_API_URL must be an http(s) URL');
    slackApiUrl = env.SLACK_API_URL.endsWith('/') ? env.SLACK_API_URL : `${env.SLACK_API_URL}/`;
  }
  return {
    botToken,
    appToken,
    signingSecret,
    port: intIn(env, 'PORT', 3000, 1, 65535),
    healthPort: env.HEALTH_PORT ? intIn(env, 'HEALTH_PORT', 8081, 1, 65535) : undefined,
    slackApiUrl,
    redisUrl,
    keyPrefix: session.keyPrefix,
    kubeconfig: session.kubeconfig,
    planTtlSeconds: intIn(env, 'HELMCREW_PLAN_TTL_SECONDS', 300, 1, 86_400),
    outcomeTimeoutMs: session.outcomeTimeoutMs,
    previewTimeoutMs: session.previewTimeoutMs,
    timeZone: session.timeZone,
    freezeSweepMs: intIn(env, 'HELMCREW_FREEZE_SWEEP_SECONDS', 15, 1, 3600) * 1000,
  };
}
