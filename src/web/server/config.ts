import { readFileSync } from 'node:fs';
import { checkedRedisUrl, ConfigError, readSharedConfig, type Env } from '../../core/config/env.js';
import { declareEnv } from '../../core/config/registry.js';
import { WEB_URL_ENV } from '../../core/links/web-url.js';
import { readFleetSettings, type FleetSettings } from '../../session/fleet/fleet-settings.js';

/**
 * The web surface's settings. A bad value stops start-up with one line naming the variable; the
 * client secrets are read (from the variable or a mounted file) and never echoed.
 */

/** The most a web session may last (the issue's rule); HELMCREW_WEB_SESSION_SECONDS may only shorten it. */
export const MAX_SESSION_SECONDS = 12 * 60 * 60;
export const SLACK_ISSUER = 'https://slack.com';

export const WEB_ENV = declareEnv(['web'], {
  HELMCREW_WEB_LISTEN: {
    defaultText: '`helmcrew web`: `0.0.0.0:8080`; `helmcrew run`: none (no web pages)',
    meaning: 'host:port the release pages listen on; `helmcrew run` serves them only when it is set ([web](web.md))',
  },
  HELMCREW_OIDC_ISSUER_URL: {
    defaultText: 'none',
    meaning: 'the OIDC provider’s issuer (discovery at `<issuer>/.well-known/openid-configuration`); https, or http on loopback',
  },
  HELMCREW_OIDC_CLIENT_ID: { defaultText: 'none', meaning: 'the web pages’ client id at the OIDC provider' },
  HELMCREW_OIDC_CLIENT_SECRET: { defaultText: 'none', meaning: 'its client secret (a secret); or HELMCREW_OIDC_CLIENT_SECRET_FILE' },
  HELMCREW_OIDC_CLIENT_SECRET_FILE: { defaultText: 'none', meaning: 'a file holding the client secret (a mounted Secret)' },
  HELMCREW_OIDC_SCOPES: { default: 'openid email profile', meaning: 'scopes asked for; add the one your provider needs for the `groups` claim (`groups`)' },
  HELMCREW_OIDC_NAME: { default: 'your organization’s sign-in', meaning: 'how the sign-in page names the provider’s button' },
  HELMCREW_SLACK_OIDC_CLIENT_ID: {
    defaultText: 'none (no Sign in with Slack)',
    meaning: 'Sign in with Slack: the Slack app’s client id (Basic Information); redirect URL `<HELMCREW_WEB_URL>/auth/callback` under OAuth & Permissions',
  },
  HELMCREW_SLACK_OIDC_CLIENT_SECRET: { defaultText: 'none', meaning: 'the Slack app’s client secret (a secret); or HELMCREW_SLACK_OIDC_CLIENT_SECRET_FILE' },
  HELMCREW_SLACK_OIDC_CLIENT_SECRET_FILE: { defaultText: 'none', meaning: 'a file holding the Slack app’s client secret' },
  HELMCREW_SLACK_OIDC_ISSUER_URL: { default: SLACK_ISSUER, meaning: 'Slack’s OIDC issuer; the local fake Slack’s origin in tests and `helmcrew dev`' },
  HELMCREW_SLACK_TEAM_ID: { defaultText: 'none (any workspace)', meaning: 'Sign in with Slack accepts only users of this workspace (T…)' },
  HELMCREW_WEB_SESSION_SECONDS: { default: MAX_SESSION_SECONDS, meaning: 'how long a web session lasts at most (Redis TTL); 60–43200 (12 h)' },
  HELMCREW_WEB_TRUST_PROXY: {
    default: false,
    meaning:
      'true behind a reverse proxy or Ingress: the client’s address (for the sign-in rate limit and logs) comes from `X-Forwarded-For`; false: anyone could set that header',
  },
  HELMCREW_WEB_LOGIN_RATE_LIMIT: { default: 20, meaning: 'sign-in requests (`/auth/*`) one address may make a minute; more get a 429 page' },
  HELMCREW_MCP_CORS_ORIGINS: {
    defaultText: 'none',
    meaning:
      'browser origins (`https://host[:port]`, comma-separated) whose pages may call `/mcp` — an MCP client in a browser ([assistants](mcp.md#connecting))',
  },
});

export interface OidcProviderConfig {
  id: 'oidc' | 'slack';
  /** The sign-in page's button. */
  label: string;
  issuer: URL;
  clientId: string;
  clientSecret: string;
  scopes: string;
}

export interface WebConfig {
  listen: { host: string; port: number };
  /** The public origin and path prefix, without a trailing slash. */
  publicUrl: string;
  /** The session cookie's `Secure` flag: off only for plain http on loopback. */
  secureCookies: boolean;
  providers: OidcProviderConfig[];
  slackTeamId?: string;
  sessionSeconds: number;
  loginRateLimitPerMinute: number;
  /** Take the client's address from X-Forwarded-For (behind an Ingress). */
  trustProxy: boolean;
  redisUrl: string;
  /** Redis keys of the web sessions live under `<prefix>:web:`. */
  keyPrefix: string;
  kubeconfig?: string;
  /** Browser origins allowed to call `/mcp` (CORS, mcp/cors.ts); none when absent. */
  mcpCorsOrigins?: string[];
  /** A fleet (HELMCREW_FLEET_KEYS_DIR): the pages show, and act on, every cluster the bot would drive (docs/web.md#a-fleet). */
  fleet?: FleetSettings;
}

export function readWebConfig(env: Env = process.env, defaultListen = '0.0.0.0:8080', readFile = (path: string) => readFileSync(path, 'utf8')): WebConfig {
  const web = WEB_ENV.in(env);
  checkedRedisUrl(env);
  const shared = readSharedConfig(env);
  const listen = parseListen(web.raw('HELMCREW_WEB_LISTEN') || defaultListen);
  const rawUrl = WEB_URL_ENV.in(env).raw('HELMCREW_WEB_URL');
  if (!rawUrl) throw new ConfigError('HELMCREW_WEB_URL is not set (the web pages’ public address, e.g. https://helmcrew.example.org)');
  const publicUrl = parseUrl('HELMCREW_WEB_URL', rawUrl);
  const providers: OidcProviderConfig[] = [];
  const issuer = web.raw('HELMCREW_OIDC_ISSUER_URL');
  if (issuer) {
    const clientId = web.raw('HELMCREW_OIDC_CLIENT_ID');
    if (!clientId) throw new ConfigError('HELMCREW_OIDC_CLIENT_ID is not set (needed with HELMCREW_OIDC_ISSUER_URL)');
    providers.push({
      id: 'oidc',
      label: web.text('HELMCREW_OIDC_NAME'),
      issuer: parseUrl('HELMCREW_OIDC_ISSUER_URL', issuer),
      clientId,
      clientSecret: secret(
        ['HELMCREW_OIDC_CLIENT_SECRET', web.raw('HELMCREW_OIDC_CLIENT_SECRET')],
        ['HELMCREW_OIDC_CLIENT_SECRET_FILE', web.raw('HELMCREW_OIDC_CLIENT_SECRET_FILE')],
        readFile,
      ),
      scopes: checkedScopes(web.text('HELMCREW_OIDC_SCOPES')),
    });
  }
  const slackClientId = web.raw('HELMCREW_SLACK_OIDC_CLIENT_ID');
  if (slackClientId) {
    providers.push({
      id: 'slack',
      label: 'Sign in with Slack',
      issuer: parseUrl('HELMCREW_SLACK_OIDC_ISSUER_URL', web.text('HELMCREW_SLACK_OIDC_ISSUER_URL')),
      clientId: slackClientId,
      clientSecret: secret(
        ['HELMCREW_SLACK_OIDC_CLIENT_SECRET', web.raw('HELMCREW_SLACK_OIDC_CLIENT_SECRET')],
        ['HELMCREW_SLACK_OIDC_CLIENT_SECRET_FILE', web.raw('HELMCREW_SLACK_OIDC_CLIENT_SECRET_FILE')],
        readFile,
      ),
      scopes: 'openid email profile',
    });
  }
  if (providers.length === 0)
    throw new ConfigError(
      'no sign-in provider: set HELMCREW_OIDC_ISSUER_URL (with HELMCREW_OIDC_CLIENT_ID and _SECRET) or HELMCREW_SLACK_OIDC_CLIENT_ID (Sign in with Slack)',
    );
  const slackTeamId = web.raw('HELMCREW_SLACK_TEAM_ID') || undefined;
  if (slackTeamId && !/^T[A-Z0-9]+$/.test(slackTeamId)) throw new ConfigError('HELMCREW_SLACK_TEAM_ID must be a Slack workspace id (T…)');
  const sessionSeconds = web.positiveInt('HELMCREW_WEB_SESSION_SECONDS');
  if (sessionSeconds < 60 || sessionSeconds > MAX_SESSION_SECONDS)
    throw new ConfigError(`HELMCREW_WEB_SESSION_SECONDS must be between 60 and ${MAX_SESSION_SECONDS} (12 h)`);
  const cors = parseCorsOrigins(web.raw('HELMCREW_MCP_CORS_ORIGINS'));
  if (!cors.ok) throw new ConfigError(cors.message);
  const fleet = readFleetSettings(env);
  return {
    ...(fleet ? { fleet } : {}),
    listen,
    publicUrl: publicUrl.href.replace(/\/+$/, ''),
    secureCookies: !(publicUrl.protocol === 'http:' && isLoopback(publicUrl.hostname)),
    providers,
    slackTeamId,
    sessionSeconds,
    loginRateLimitPerMinute: web.positiveInt('HELMCREW_WEB_LOGIN_RATE_LIMIT'),
    trustProxy: web.boolean('HELMCREW_WEB_TRUST_PROXY'),
    redisUrl: shared.redisUrl,
    keyPrefix: shared.queuePrefix,
    kubeconfig: shared.kubeconfig,
    mcpCorsOrigins: cors.origins,
  };
}

/** `host:port`, `[::1]:port`; port 0 picks a free one (tests). */
export function parseListen(raw: string): { host: string; port: number } {
  const match = /^(\[[0-9a-fA-F:]+\]|[^:\s]+):(\d{1,5})$/.exec(raw.trim());
  const port = match ? Number(match[2]) : NaN;
  if (!match || port > 65535) throw new ConfigError(`HELMCREW_WEB_LISTEN must be host:port (e.g. 0.0.0.0:8080), not "${raw}"`);
  return { host: match[1]!.replace(/^\[|\]$/g, ''), port };
}

/** An https URL, or http on a loopback address (a local provider, tests). */
function parseUrl(name: string, raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an http(s) URL, not "${raw}"`);
  }
  if (url.protocol === 'https:') return url;
  if (url.protocol === 'http:' && isLoopback(url.hostname)) return url;
  throw new ConfigError(`${name} must be an https URL (plain http only on a loopback address), not "${raw}"`);
}

export function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || hostname === '::1' || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

function checkedScopes(scopes: string): string {
  if (!scopes.split(/\s+/).includes('openid')) throw new ConfigError('HELMCREW_OIDC_SCOPES must include openid');
  return scopes.trim();
}

/** The secret as set, else read from the file the `_FILE` variable names; never echoed. */
function secret([name, value]: [string, string | undefined], [fileName, file]: [string, string | undefined], readFile: (path: string) => string): string {
  if (value) return value;
  if (!file) throw new ConfigError(`${name} is not set (or ${fileName}, a file holding it)`);
  let text: string;
  try {
    text = readFile(file).trim();
  } catch (error) {
    throw new ConfigError(`${fileName}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (!text) throw new ConfigError(`${fileName}: ${file} is empty`);
  return text;
}

/**
 * Pure: HELMCREW_MCP_CORS_ORIGINS — origins separated by commas or spaces, each exactly an origin
 * (`https://host[:port]`, no path, no `*`); the error names the first that is not.
 */
export function parseCorsOrigins(raw: string | undefined): { ok: true; origins: string[] } | { ok: false; message: string } {
  const origins = (raw ?? '').split(/[\s,]+/).filter(Boolean);
  for (const origin of origins) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (!parsed || !['http:', 'https:'].includes(parsed.protocol) || parsed.origin !== origin)
      return { ok: false, message: `HELMCREW_MCP_CORS_ORIGINS: ${JSON.stringify(origin.slice(0, 100))} is not an origin (https://host[:port], no path)` };
  }
  return { ok: true, origins };
}
