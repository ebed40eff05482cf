import { randomBytes } from 'node:crypto';
import type { Logger } from '../../core/log.js';
import type { TokenStore } from '../../session/tokens/token-store.js';
import type { TokenRecord, TokenScope } from '../../session/tokens/token-verdict.js';
import { MAX_SESSION_SECONDS } from '../server/config.js';
import { scopeWords } from './oauth-rules.js';
import type { OAuthStore } from './oauth-store.js';
import {
  checkCodeExchange,
  checkRefresh,
  type CodeRequest,
  type GrantPrincipal,
  type RefreshGrant,
  type RefreshRequest,
  type TokenError,
} from './token-request.js';

/**
 * What the token endpoint does with a request it read: a code redeemed once begins a family — an
 * access token (an hour) and a refresh token, rotated on each use, none outliving the longest web
 * session after the consent (12 h). Replaying a used code or refresh token ends the family and
 * revokes its access tokens; so does `helmcrew token revoke` of the family's latest access token.
 */

export interface TokenGrantDeps {
  store: OAuthStore;
  tokens: Pick<TokenStore, 'create' | 'revoke' | 'byId'>;
  log: Logger;
  accessTokenSeconds: number;
}

/** The token response (RFC 6749 §5.1). */
export interface TokenAnswer {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/** Whom a token acts as: a Slack user as `token create` makes them, or the OIDC person with the email and groups the web saw. */
export function tokenOwner(principal: GrantPrincipal, client: { id: string; name: string }): { user: string; owner: Pick<TokenRecord, 'person' | 'client'> } {
  const { id, via, subject } = principal;
  if (via === 'slack' && subject.slackUser) return { user: subject.slackUser, owner: { client } };
  return { user: '', owner: { client, person: { id, ...(subject.email ? { email: subject.email } : {}), groups: subject.groups ?? [] } } };
}

const invalidGrant = (error_description: string): TokenError => ({ status: 400, error: 'invalid_grant', error_description });

export class TokenGrants {
  constructor(private readonly deps: TokenGrantDeps) {}

  async redeemCode(request: CodeRequest, now = Date.now()): Promise<TokenAnswer | TokenError> {
    const { store, log } = this.deps;
    const grant = await store.takeCode(request.code);
    if (!grant) {
      // A replayed code: what it issued was seen by someone else too.
      const family = await store.codeUsedBy(request.code);
      if (!family) return invalidGrant('this code is not known, expired (60 s) or was already tried');
      const revoked = await this.endFamily(family);
      log.warn({ client: request.clientId, revoked }, 'an OAuth code was used twice: revoked what it issued');
      return invalidGrant('this code was already used; the tokens it issued are revoked');
    }
    const fault = checkCodeExchange(request, grant);
    if (fault) {
      log.info({ client: request.clientId, error: fault.error, detail: fault.error_description }, 'refused an OAuth code');
      return fault;
    }
    const family = randomBytes(12).toString('base64url');
    await store.markCodeUsed(request.code, family);
    const grantBase = { clientId: grant.clientId, clientName: grant.clientName, resource: grant.resource, principal: grant.principal, family };
    return this.issue({ ...grantBase, expiresAt: now + MAX_SESSION_SECONDS * 1000 }, grant.scope, now);
  }

  async refresh(request: RefreshRequest, now = Date.now()): Promise<TokenAnswer | TokenError> {
    const { store, tokens, log } = this.deps;
    const grant = await store.takeRefresh(request.refreshToken, now);
    if (!grant) {
      const family = await store.refreshUsedBy(request.refreshToken);
      if (!family) return invalidGrant('this refresh token is not known or expired');
      const revoked = await this.endFamily(family);
      log.warn({ client: request.clientId, revoked }, 'an OAuth refresh token was used twice: revoked its family');
      return invalidGrant('this refresh token was already used; every token of its sign-in is revoked');
    }
    const checked = checkRefresh(request, grant, now);
    if ('error' in checked) return checked;
    // `helmcrew token revoke <id>` of the latest access token ends the family too.
    const previous = await tokens.byId(grant.accessTokenId);
    if (!previous || previous.revokedAt !== undefined) {
      await this.endFamily(grant.family);
      return invalidGrant(`token ${grant.accessTokenId} was revoked; authorize again`);
    }
    return this.issue(grant, checked.scope, now);
  }

  private async issue(grant: Omit<RefreshGrant, 'accessTokenId' | 'scope'>, scope: TokenScope, now: number): Promise<TokenAnswer> {
    const client = { id: grant.clientId, name: grant.clientName };
    const { user, owner } = tokenOwner(grant.principal, client);
    const ttlMs = Math.min(this.deps.accessTokenSeconds * 1000, grant.expiresAt - now);
    const { token, record } = await this.deps.tokens.create(user, scope, ttlMs, now, owner);
    const refreshToken = await this.deps.store.putRefresh({ ...grant, scope, accessTokenId: record.id }, now);
    await this.deps.store.keepClient(grant.clientId);
    this.deps.log.info({ token: record.id, person: grant.principal.id, client, scope, family: grant.family }, 'issued an assistant token through OAuth');
    return { access_token: token, token_type: 'Bearer', expires_in: Math.floor(ttlMs / 1000), refresh_token: refreshToken, scope: scopeWords(scope) };
  }

  private async endFamily(family: string): Promise<string[]> {
    const ids = await this.deps.store.endFamily(family);
    for (const id of ids) await this.deps.tokens.revoke(id);
    return ids;
  }
}
