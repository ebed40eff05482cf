import type { Logger } from '../../core/log.js';
import type { RedisConnection } from '../../core/redis.js';
import type { TokenStore } from '../../session/tokens/token-store.js';
import type { PageRoutes } from '../contract.js';
import { authorizeRoutes } from './authorize-routes.js';
import { OAuthStore } from './oauth-store.js';
import { TokenGrants } from './token-grants.js';
import { tokenRoutes } from './token-routes.js';

/**
 * The web as the assistants' OAuth 2.1 authorization server (docs/mcp.md): a person signed in on the
 * web allows an MCP client, which gets a short-lived token of the token store acting as that person.
 */

export interface OAuthServerOptions {
  /** HELMCREW_WEB_URL: the issuer; `/mcp` under it is the one resource. */
  publicUrl: string;
  redis: RedisConnection;
  /** The cluster's keyspace: clients and codes live beside the tokens. */
  keyspace: string;
  tokens: Pick<TokenStore, 'create' | 'revoke' | 'byId'>;
  log: Logger;
  /** An access token's life; default an hour. */
  accessTokenSeconds?: number;
  /** Requests one address may make a minute to each endpoint; default 30. */
  ratePerMinute?: number;
}

export const ACCESS_TOKEN_SECONDS = 3600;

export function oauthServerRoutes(options: OAuthServerOptions): PageRoutes[] {
  const store = new OAuthStore(options.redis, options.keyspace);
  const ratePerMinute = options.ratePerMinute ?? 30;
  return [
    authorizeRoutes({ publicUrl: options.publicUrl, store, log: options.log, ratePerMinute }),
    tokenRoutes({
      publicUrl: options.publicUrl,
      store,
      grants: new TokenGrants({ store, tokens: options.tokens, log: options.log, accessTokenSeconds: options.accessTokenSeconds ?? ACCESS_TOKEN_SECONDS }),
      log: options.log,
      ratePerMinute,
    }),
  ];
}
