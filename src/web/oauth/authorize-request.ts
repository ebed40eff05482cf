import type { TokenScope } from '../../session/tokens/token-verdict.js';
import { checkRedirectUri, isS256Challenge, parseScope, type OAuthClient } from './oauth-rules.js';

/**
 * Pure: an authorization request (OAuth 2.1 §4.1.1 with PKCE, RFC 8707's resource), decided before
 * anything is written. A request whose client
 * or redirect URI cannot be trusted is refused on a page (never redirected: RFC 6749 §4.1.2.1); any
 * other fault goes back to the client's redirect URI as an error.
 */

/** What a person consents to, and what Allow binds the one-time code to. */
export interface AuthorizationAsk {
  clientId: string;
  clientName: string;
  redirectUri: string;
  codeChallenge: string;
  /** The most the client asked for; the person may narrow it to read. */
  scope: TokenScope;
  resource: string;
  state?: string;
}

export type AuthorizeDecision = { kind: 'refuse'; reason: string } | { kind: 'redirect'; to: string } | { kind: 'consent'; ask: AuthorizationAsk };

/** A query parameter given once, as text; repeated or absent: undefined (RFC 6749 §3.1: each at most once). */
function single(query: Record<string, unknown>, name: string): { value?: string; repeated: boolean } {
  const raw = query[name];
  if (Array.isArray(raw)) return { repeated: true };
  return { value: typeof raw === 'string' ? raw : undefined, repeated: false };
}

/** The redirect back to the client: its own URI with the answer's parameters and the issuer (RFC 9207). */
export function authorizationRedirect(redirectUri: string, issuer: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  url.searchParams.set('iss', issuer);
  return url.href;
}

export function decideAuthorize(
  query: Record<string, unknown>,
  client: OAuthClient | undefined,
  server: { issuer: string; resource: string },
): AuthorizeDecision {
  const clientId = single(query, 'client_id');
  if (!clientId.value || clientId.repeated) return { kind: 'refuse', reason: 'the request names no client (client_id)' };
  if (!client) return { kind: 'refuse', reason: 'this client is not registered here (or its registration expired); the assistant should register again' };
  const redirect = single(query, 'redirect_uri');
  if (!redirect.value || redirect.repeated) return { kind: 'refuse', reason: 'the request names no redirect_uri' };
  // Exactly as registered: an attacker cannot have the code sent anywhere else.
  if (!client.redirectUris.includes(redirect.value) || !checkRedirectUri(redirect.value).ok)
    return { kind: 'refuse', reason: 'the redirect_uri is not one this client registered' };
  const state = single(query, 'state');
  const back = (error: string, description: string): AuthorizeDecision => ({
    kind: 'redirect',
    to: authorizationRedirect(redirect.value!, server.issuer, { error, error_description: description, state: state.value?.slice(0, 1000) }),
  });
  const repeated = ['response_type', 'code_challenge', 'code_challenge_method', 'scope', 'resource', 'state'].find((name) => single(query, name).repeated);
  if (repeated) return back('invalid_request', `${repeated} must be given once`);
  if (state.value !== undefined && state.value.length > 1000) return back('invalid_request', 'state is longer than 1000 characters');
  const responseType = single(query, 'response_type').value;
  if (responseType !== 'code') return back('unsupported_response_type', 'response_type must be "code"');
  const method = single(query, 'code_challenge_method').value;
  if (method !== 'S256') return back('invalid_request', 'code_challenge_method must be S256 (PKCE; "plain" is refused)');
  const challenge = single(query, 'code_challenge').value;
  if (!isS256Challenge(challenge)) return back('invalid_request', 'code_challenge must be the 43-character base64url of a SHA-256');
  const scope = parseScope(single(query, 'scope').value);
  if (!scope.ok) return back('invalid_scope', scope.reason);
  const resource = single(query, 'resource').value;
  if (resource !== undefined && resource !== server.resource) return back('invalid_target', `resource must be ${server.resource}`);
  return {
    kind: 'consent',
    ask: {
      clientId: client.clientId,
      clientName: client.name,
      redirectUri: redirect.value,
      codeChallenge: challenge,
      scope: scope.value,
      resource: server.resource,
      ...(state.value !== undefined ? { state: state.value } : {}),
    },
  };
}
