import { ConfigError, type Env } from '../config/env.js';
import { declareEnv } from '../config/registry.js';

/**
 * The web pages' public address. The web serves there; notify and the bot link each release to its
 * page there. Unset: the web does not start, and nothing is linked.
 */
export const WEB_URL_ENV = declareEnv(['web', 'notify', 'bot'], {
  HELMCREW_WEB_URL: {
    meaning:
      'the pages’ public address (`https://helmcrew.example.org`): the sign-in redirect URI is `<url>/auth/callback`; plain http only on a loopback address (the session cookie is `Secure` otherwise). Required for the web pages; set for notify and the bot, every Slack message and `/release` answer about a release links to its page',
  },
});

/** HELMCREW_WEB_URL as links are made from it (no trailing slash), or undefined when unset. */
export function readWebUrl(env: Env = process.env): string | undefined {
  const raw = WEB_URL_ENV.in(env).raw('HELMCREW_WEB_URL')?.trim();
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`HELMCREW_WEB_URL must be an http(s) URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`HELMCREW_WEB_URL must be an http(s) URL, got "${raw}"`);
  return url.href.replace(/\/+$/, '');
}
