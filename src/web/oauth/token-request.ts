import type { TokenScope } from '../../session/tokens/token-verdict.js';
import type { WebPrincipal } from '../contract.js';
import { isCodeVerifier, parseScope, pkceMatches } from './oauth-rules.js';

/**
 * Pure: a request to the token endpoint read from its form, and whether it redeems what it names — a
 * one-time code (with its PKCE verifier) or a refresh token — before anything is issued. Each fault
 * says which, as RFC 6749 §5.2 names them.
 */

/** An error of the token endpoint, with the HTTP status it is sent with. */
export interface TokenError {
  status: 400 | 401;
  error: 'invalid_request' | 'invalid_client' | 'invalid_grant' | 'unsupported_grant_type' | 'invalid_target' | 'invalid_scope';
  error_description: string;
}

export type TokenRequest =
  | { grant: 'authorization_code'; code: string; codeVerifier: string; clientId: string; redirectUri: string; resource?: string }
  | { grant: 'refresh_token'; refreshToken: string; clientId: string; scope?: TokenScope; resource?: string };

export type CodeRequest = Extract<TokenRequest, { grant: 'authorization_code' }>;
export type RefreshRequest = Extract<TokenRequest, { grant: 'refresh_token' }>;

export function readTokenRequest(body: unknown): { ok: true; value: TokenRequest } | { ok: false; error: TokenError } {
  const form = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const bad = (error_description: string, error: TokenError['error'] = 'invalid_request') => ({
    ok: false as const,
    error: { status: 400 as const, error, error_description },
  });
  const text = (name: string) => (typeof form[name] === 'string' ? form[name] : undefined);
  const grantType = text('grant_type');
  if (!grantType) return bad('grant_type is missing (send the form as application/x-www-form-urlencoded)');
  const clientId = text('client_id');
  const resource = text('resource');
  const withResource = resource !== undefined ? { resource } : {};
  if (grantType === 'refresh_token') {
    const refreshToken = text('refresh_token');
    if (!refreshToken || refreshToken.length > 200) return bad('refresh_token is missing');
    if (!clientId || clientId.length > 100) return bad('client_id is missing (a public client names itself in the form)');
    const scope = text('scope');
    if (scope === undefined) return { ok: true, value: { grant: 'refresh_token', refreshToken, clientId, ...withResource } };
    const parsed = parseScope(scope);
    if (!parsed.ok) return bad(parsed.reason, 'invalid_scope');
    return { ok: true, value: { grant: 'refresh_token', refreshToken, clientId, scope: parsed.value, ...withResource } };
  }
  if (grantType !== 'authorization_code')
    return bad(`grant_type ${JSON.stringify(grantType.slice(0, 50))} is not supported: authorization_code or refresh_token`, 'unsupported_grant_type');
  const [code, codeVerifier, redirectUri] = ['code', 'code_verifier', 'redirect_uri'].map(text);
  if (!code || code.length > 200) return bad('code is missing');
  if (!clientId || clientId.length > 100) return bad('client_id is missing (a public client names itself in the form)');
  if (!redirectUri) return bad('redirect_uri is missing');
  if (!isCodeVerifier(codeVerifier)) return bad('code_verifier is missing or not 43–128 unreserved characters (PKCE)');
  return { ok: true, value: { grant: 'authorization_code', code, codeVerifier, clientId, redirectUri, ...withResource } };
}

/** Who allowed the client, as the web saw them: what every token of the grant acts as. */
export type GrantPrincipal = Pick<WebPrincipal, 'id' | 'via' | 'subject'>;

/** What a one-time code was bound to at Allow. */
export interface CodeGrant {
  clientId: string;
  clientName: string;
  redirectUri: string;
  codeChallenge: string;
  scope: TokenScope;
  resource: string;
  principal: GrantPrincipal;
}

/** What a refresh token stands for: one consent's tokens, rotated, until the consent's end. */
export interface RefreshGrant {
  clientId: string;
  clientName: string;
  scope: TokenScope;
  resource: string;
  principal: GrantPrincipal;
  /** One consent's chain of tokens: a replayed refresh token revokes all of it. */
  family: string;
  /** Epoch ms: no token of the family outlives it (a web session's longest life after the consent). */
  expiresAt: number;
  /** The access token issued with this refresh token: revoked (`helmcrew token revoke`) → the family ends. */
  accessTokenId: string;
}

const mismatchedResource = (resource: string): TokenError => ({ status: 400, error: 'invalid_target', error_description: `resource must be ${resource}` });

/** Does this request redeem that code? */
export function checkCodeExchange(request: CodeRequest, grant: CodeGrant): TokenError | undefined {
  const invalid = (error_description: string): TokenError => ({ status: 400, error: 'invalid_grant', error_description });
  if (request.clientId !== grant.clientId) return invalid('this code was issued to another client');
  if (request.redirectUri !== grant.redirectUri) return invalid('redirect_uri differs from the authorization request');
  if (!pkceMatches(request.codeVerifier, grant.codeChallenge)) return invalid('code_verifier does not match the code_challenge (PKCE)');
  if (request.resource !== undefined && request.resource !== grant.resource) return mismatchedResource(grant.resource);
  return undefined;
}

/** Does this request refresh that grant, and with what scope (the same, or narrower: propose → read)? */
export function checkRefresh(request: RefreshRequest, grant: RefreshGrant, now: number): TokenError | { scope: TokenScope } {
  if (request.clientId !== grant.clientId) return { status: 400, error: 'invalid_grant', error_description: 'this refresh token was issued to another client' };
  if (now >= grant.expiresAt) return { status: 400, error: 'invalid_grant', error_description: 'this sign-in ended; authorize again' };
  if (request.resource !== undefined && request.resource !== grant.resource) return mismatchedResource(grant.resource);
  if (request.scope === 'propose' && grant.scope === 'read')
    return { status: 400, error: 'invalid_scope', error_description: 'the person allowed reading only; authorize again to ask for propose' };
  return { scope: request.scope ?? grant.scope };
}
