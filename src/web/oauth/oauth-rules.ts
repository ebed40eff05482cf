import { createHash, timingSafeEqual } from 'node:crypto';
import type { TokenScope } from '../../session/tokens/token-verdict.js';
import { isLoopback } from '../server/config.js';

/**
 * Pure: the small rules of the assistants' OAuth (OAuth 2.1 as the MCP authorization spec uses it):
 * which redirect URIs a client may register, PKCE's S256 check, the scopes, and a registration
 * request (RFC 7591) read into a public client.
 */

export type Checked<T> = { ok: true; value: T } | { ok: false; reason: string };

/** https anywhere, or plain http on a loopback address (a desktop client's local listener); no fragment, no user info. */
export function checkRedirectUri(raw: unknown): Checked<string> {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > 2000) return { ok: false, reason: 'a redirect URI must be a URL of at most 2000 characters' };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: `${JSON.stringify(raw.slice(0, 100))} is not a URL` };
  }
  if (url.hash || raw.includes('#')) return { ok: false, reason: 'a redirect URI must not have a fragment (#…)' };
  if (url.username || url.password) return { ok: false, reason: 'a redirect URI must not carry a user name or password' };
  if (url.protocol === 'https:') return { ok: true, value: raw };
  if (url.protocol === 'http:' && isLoopback(url.hostname)) return { ok: true, value: raw };
  return { ok: false, reason: `${JSON.stringify(raw.slice(0, 100))} is neither https nor http on a loopback address (127.0.0.1, [::1], localhost)` };
}

/** RFC 7636 §4.1: 43–128 unreserved characters. */
export const isCodeVerifier = (value: unknown): value is string => typeof value === 'string' && /^[A-Za-z0-9\-._~]{43,128}$/.test(value);
/** An S256 challenge: the base64url of a SHA-256, 43 characters. */
export const isS256Challenge = (value: unknown): value is string => typeof value === 'string' && /^[A-Za-z0-9_-]{43}$/.test(value);

/** PKCE S256 (RFC 7636 §4.6): base64url(SHA-256(verifier)) equals the challenge, compared in constant time. */
export function pkceMatches(verifier: unknown, challenge: string): boolean {
  if (!isCodeVerifier(verifier)) return false;
  const computed = Buffer.from(createHash('sha256').update(verifier).digest('base64url'));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}

/**
 * The scope asked for, as the most it may grant: `propose` (which reads too) when it names propose,
 * else `read`; none named: `read`. The Teams still decide every call, so this is only an upper bound.
 */
export function parseScope(raw: unknown): Checked<TokenScope> {
  if (raw === undefined || raw === '') return { ok: true, value: 'read' };
  if (typeof raw !== 'string' || raw.length > 200) return { ok: false, reason: 'scope must be "read", "propose" or both, separated by a space' };
  const words = raw.split(' ').filter((w) => w !== '');
  const unknown = words.filter((w) => w !== 'read' && w !== 'propose');
  if (unknown.length > 0) return { ok: false, reason: `unknown scope ${JSON.stringify(unknown[0]!.slice(0, 50))}: helmcrew grants "read" and "propose"` };
  return { ok: true, value: words.includes('propose') ? 'propose' : 'read' };
}

/** How a token's scope is written in a token response: propose includes read. */
export const scopeWords = (scope: TokenScope): string => (scope === 'propose' ? 'read propose' : 'read');

/** A registered public client: what Redis keeps and the consent page shows. */
export interface OAuthClient {
  clientId: string;
  /** As the client named itself (shown escaped, and beside the redirect URI's host). */
  name: string;
  redirectUris: string[];
  createdAt: number;
}

export type RegistrationError = { error: 'invalid_redirect_uri' | 'invalid_client_metadata'; error_description: string };

/** RFC 7591 §2 read for a public client: redirect URIs by the rule above, code flow only, no client secret. */
export function checkRegistration(body: unknown): { ok: true; value: Omit<OAuthClient, 'clientId' | 'createdAt'> } | { ok: false; error: RegistrationError } {
  const meta = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const invalid = (error_description: string) => ({ ok: false as const, error: { error: 'invalid_client_metadata' as const, error_description } });
  const uris = meta.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || uris.length > 10) return invalid('redirect_uris must list 1 to 10 redirect URIs');
  for (const uri of uris) {
    const checked = checkRedirectUri(uri);
    if (!checked.ok) return { ok: false, error: { error: 'invalid_redirect_uri', error_description: checked.reason } };
  }
  const method = meta.token_endpoint_auth_method;
  if (method !== undefined && method !== 'none')
    return invalid(`helmcrew registers public clients only: token_endpoint_auth_method must be "none" (PKCE proves the client), not ${JSON.stringify(method)}`);
  const grants = meta.grant_types;
  if (
    grants !== undefined &&
    (!Array.isArray(grants) || !grants.includes('authorization_code') || grants.some((g) => g !== 'authorization_code' && g !== 'refresh_token'))
  )
    return invalid('grant_types may name only authorization_code and refresh_token, and must name authorization_code');
  const responses = meta.response_types;
  if (responses !== undefined && (!Array.isArray(responses) || responses.some((r) => r !== 'code'))) return invalid('response_types must be ["code"]');
  const name = meta.client_name;
  if (name !== undefined && (typeof name !== 'string' || name.trim() === '' || name.length > 100 || /\p{Cc}/u.test(name)))
    return invalid('client_name must be 1 to 100 printable characters');
  return { ok: true, value: { name: typeof name === 'string' ? name.trim() : 'an unnamed client', redirectUris: uris as string[] } };
}

/** The client's registration as RFC 7591 §3.2.1 answers it. */
export function registrationResponse(client: OAuthClient) {
  return {
    client_id: client.clientId,
    client_id_issued_at: Math.floor(client.createdAt / 1000),
    client_name: client.name,
    redirect_uris: client.redirectUris,
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
}
