import { checkedRedisUrl, ConfigError, SHARED_ENV } from '../../core/config/env.js';
import { readWebUrl } from '../../core/links/web-url.js';
import { declareEnv } from '../../core/config/registry.js';
import { intIn, readSessionConfig } from '../../session/flow/config.js';
import { readFleetSettings, type FleetSettings } from '../../session/fleet/fleet-settings.js';

/** The bot's variables (docs/configuration.md is generated from them); SLACK_BOT_TOKEN and the rest it shares are in SHARED_ENV. */
export const BOT_ENV = declareEnv(['bot'], {
  SLACK_APP_TOKEN: { defaultText: 'none', meaning: 'an app-level token (`xapp-…`, scope `connections:write`, a secret): Socket Mode, no ingress needed' },
  SLACK_SIGNING_SECRET: {
    defaultText: 'none',
    meaning: 'without an app token: HTTP mode, requests signed with this secret at `/slack/events` on `PORT`',
  },
  PORT: { default: 3000, meaning: 'the HTTP mode port' },
  HELMCREW_PLAN_TTL_SECONDS: { default: 300, meaning: 'how long a plan’s Confirm button (and an approval request) stays valid; 1–86400' },
  HELMCREW_FREEZE_SWEEP_SECONDS: {
    default: 15,
    meaning: 'how often the bot looks for Freezes set from Slack that expired or were deleted, to report their end; 1–3600',
  },
});

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
  /** The bot's own cluster's name (HELMCREW_CLUSTER_NAME, else `default`). */
  cluster: string;
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
  /** A fleet (session/fleet/fleet-settings.ts): the bot's own cluster, the shared prefix, where the per-cluster keys are, how long an agent has to answer. */
  fleet?: FleetSettings;
  /** /healthz, /readyz and /metrics when set (`helmcrew bot`; in `run` the controller's server serves them). */
  healthPort?: number;
  /** HELMCREW_WEB_URL: answers about a release link to its page there; unset, nothing is linked. */
  webUrl?: string;
}

type Env = Record<string, string | undefined>;

export function readBotConfig(env: Env = process.env): BotConfig {
  const shared = SHARED_ENV.in(env);
  const own = BOT_ENV.in(env);
  const botToken = shared.raw('SLACK_BOT_TOKEN');
  if (!botToken) throw new ConfigError('SLACK_BOT_TOKEN is not set (the bot token, xoxb-…)');
  if (!botToken.startsWith('xoxb-')) throw new ConfigError('SLACK_BOT_TOKEN must be a bot token starting with xoxb-');
  const appToken = own.raw('SLACK_APP_TOKEN') || undefined;
  if (appToken && !appToken.startsWith('xapp-')) throw new ConfigError('SLACK_APP_TOKEN must be an app-level token starting with xapp-');
  const signingSecret = own.raw('SLACK_SIGNING_SECRET') || undefined;
  if (!appToken && !signingSecret) throw new ConfigError('SLACK_SIGNING_SECRET is not set (needed in HTTP mode; set SLACK_APP_TOKEN for Socket Mode instead)');
  const redisUrl = checkedRedisUrl(env);
  // What the terminal's `helmcrew release` reads too (session/config.ts).
  const session = readSessionConfig(env);
  let slackApiUrl: string | undefined;
  const rawApiUrl = shared.raw('SLACK_API_URL');
  if (rawApiUrl) {
    if (!/^https?:\/\/[^\s]+$/.test(rawApiUrl)) throw new ConfigError('SLACK_API_URL must be an http(s) URL');
    slackApiUrl = rawApiUrl.endsWith('/') ? rawApiUrl : `${rawApiUrl}/`;
  }
  const fleet = readFleetSettings(env);
  const webUrl = readWebUrl(env);
  return {
    ...(fleet ? { fleet } : {}),
    ...(webUrl ? { webUrl } : {}),
    botToken,
    appToken,
    signingSecret,
    port: own.parse('PORT', (e, name, fallback) => intIn(e, name, fallback, 1, 65535)),
    healthPort: shared.raw('HEALTH_PORT') ? intIn(env, 'HEALTH_PORT', 8081, 1, 65535) : undefined,
    slackApiUrl,
    redisUrl,
    keyPrefix: session.keyPrefix,
    cluster: session.cluster,
    kubeconfig: session.kubeconfig,
    planTtlSeconds: own.parse('HELMCREW_PLAN_TTL_SECONDS', (e, name, fallback) => intIn(e, name, fallback, 1, 86_400)),
    outcomeTimeoutMs: session.outcomeTimeoutMs,
    previewTimeoutMs: session.previewTimeoutMs,
    timeZone: session.timeZone,
    freezeSweepMs: own.parse('HELMCREW_FREEZE_SWEEP_SECONDS', (e, name, fallback) => intIn(e, name, fallback, 1, 3600)) * 1000,
  };
}
