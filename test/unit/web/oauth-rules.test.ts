import * as oidc from 'openid-client';
import { describe, expect, it } from 'vitest';
import { bearerChallenge } from '../../../src/mcp/http-route.js';
import { authorizationServerMetadata, protectedResourceMetadata, resourceMetadataUrl } from '../../../src/session/tokens/oauth-metadata.js';
import type { TokenRecord } from '../../../src/session/tokens/token-verdict.js';
import { decideAuthorize } from '../../../src/web/oauth/authorize-request.js';
import { checkRedirectUri, checkRegistration, parseScope, pkceMatches } from '../../../src/web/oauth/oauth-rules.js';
import { tokenOwner } from '../../../src/web/oauth/token-grants.js';
import { checkCodeExchange, checkRefresh, readTokenRequest, type CodeGrant, type RefreshGrant } from '../../../src/web/oauth/token-request.js';

const WEB = 'https://helmcrew.example.org';
const verifier = oidc.randomPKCECodeVerifier();
// An independent S256 (openid-client's), so the check is not compared with itself.
const challenge = await oidc.calculatePKCECodeChallenge(verifier);
const client = { clientId: 'hcc_0123456789abcdefghijkl', name: 'Test <b>client</b>', redirectUris: ['http://127.0.0.1:33418/callback'], createdAt: 0 };
const server = { issuer: WEB, resource: `${WEB}/mcp` };
const goodQuery = {
  response_type: 'code',
  client_id: client.clientId,
  redirect_uri: client.redirectUris[0],
  code_challenge: challenge,
  code_challenge_method: 'S256',
  scope: 'read propose',
  state: 'st-1',
  resource: `${WEB}/mcp`,
};

describe('assistant OAuth: redirect URIs', () => {
  it.each([
    { uri: 'https://claude.ai/api/mcp/auth_callback', ok: true },
    { uri: 'http://127.0.0.1:33418/callback', ok: true },
    { uri: 'http://[::1]:8000/cb', ok: true },
    { uri: 'http://localhost:9000/cb?x=1', ok: true },
    { uri: 'http://example.org/cb', ok: false },
    { uri: 'http://127.0.0.1.evil.example/cb', ok: false },
    { uri: 'https://example.org/cb#frag', ok: false },
    { uri: 'https://user:pw@example.org/cb', ok: false },
    { uri: 'javascript:alert(1)', ok: false },
    { uri: 'cursor://callback', ok: false },
    { uri: 'not a url', ok: false },
  ])('checkRedirectUri($uri) ok=$ok', ({ uri, ok }) => expect(checkRedirectUri(uri).ok).toBe(ok));
});

describe('assistant OAuth: PKCE and scope', () => {
  it('S256 matches its verifier, and nothing else', () => {
    expect(pkceMatches(verifier, challenge)).toBe(true);
    expect(pkceMatches(oidc.randomPKCECodeVerifier(), challenge)).toBe(false);
    expect(pkceMatches(challenge, challenge)).toBe(false); // "plain": the challenge as its own verifier
    expect(pkceMatches('short', challenge)).toBe(false);
    expect(pkceMatches(undefined, challenge)).toBe(false);
  });

  it.each([
    { raw: undefined, want: 'read' },
    { raw: 'read', want: 'read' },
    { raw: 'read propose', want: 'propose' },
    { raw: 'propose', want: 'propose' },
    { raw: 'read admin', want: undefined },
    { raw: 'openid', want: undefined },
  ])('parseScope($raw) → $want', ({ raw, want }) => {
    const parsed = parseScope(raw);
    expect(parsed.ok ? parsed.value : undefined).toBe(want);
  });
});

describe('assistant OAuth: registration', () => {
  it.each([
    {
      name: 'a loopback client',
      body: { redirect_uris: ['http://127.0.0.1:5000/cb'], client_name: 'Desk', token_endpoint_auth_method: 'none' },
      error: undefined,
    },
    {
      name: 'grant types with refresh',
      body: { redirect_uris: ['https://a.example/cb'], grant_types: ['authorization_code', 'refresh_token'] },
      error: undefined,
    },
    { name: 'non-loopback http', body: { redirect_uris: ['http://a.example/cb'] }, error: 'invalid_redirect_uri' },
    { name: 'no redirect URIs', body: { client_name: 'x' }, error: 'invalid_client_metadata' },
    {
      name: 'a confidential client',
      body: { redirect_uris: ['https://a.example/cb'], token_endpoint_auth_method: 'client_secret_basic' },
      error: 'invalid_client_metadata',
    },
    { name: 'implicit', body: { redirect_uris: ['https://a.example/cb'], response_types: ['token'] }, error: 'invalid_client_metadata' },
    { name: 'client credentials', body: { redirect_uris: ['https://a.example/cb'], grant_types: ['client_credentials'] }, error: 'invalid_client_metadata' },
    { name: 'a name with a newline', body: { redirect_uris: ['https://a.example/cb'], client_name: 'a\nb' }, error: 'invalid_client_metadata' },
    { name: 'not an object', body: 'x', error: 'invalid_client_metadata' },
  ])('$name', ({ body, error }) => {
    const checked = checkRegistration(body);
    expect(checked.ok ? undefined : checked.error.error).toBe(error);
  });
});

describe('assistant OAuth: the authorization request', () => {
  it('a good request asks for consent, bound to what was asked', () => {
    expect(decideAuthorize(goodQuery, client, server)).toEqual({
      kind: 'consent',
      ask: {
        clientId: client.clientId,
        clientName: client.name,
        redirectUri: client.redirectUris[0],
        codeChallenge: challenge,
        scope: 'propose',
        resource: `${WEB}/mcp`,
        state: 'st-1',
      },
    });
  });

  it.each([
    { name: 'unknown client', query: goodQuery, known: false },
    { name: 'no client_id', query: { ...goodQuery, client_id: undefined }, known: true },
    { name: 'a redirect URI not registered', query: { ...goodQuery, redirect_uri: 'http://127.0.0.1:1/other' }, known: true },
    { name: 'a repeated redirect URI', query: { ...goodQuery, redirect_uri: [client.redirectUris[0], 'https://evil.example/'] }, known: true },
  ])('refused on a page, never redirected: $name', ({ query, known }) => {
    expect(decideAuthorize(query, known ? client : undefined, server).kind).toBe('refuse');
  });

  it.each([
    { name: 'plain PKCE', change: { code_challenge_method: 'plain' }, error: 'invalid_request' },
    { name: 'no PKCE', change: { code_challenge: undefined, code_challenge_method: undefined }, error: 'invalid_request' },
    { name: 'a token response', change: { response_type: 'token' }, error: 'unsupported_response_type' },
    { name: 'an unknown scope', change: { scope: 'admin' }, error: 'invalid_scope' },
    { name: 'another resource', change: { resource: 'https://other.example/mcp' }, error: 'invalid_target' },
  ])('sent back to the client: $name → $error', ({ change, error }) => {
    const decision = decideAuthorize({ ...goodQuery, ...change }, client, server);
    expect(decision.kind).toBe('redirect');
    const to = new URL(decision.kind === 'redirect' ? decision.to : 'http://x');
    expect(`${to.origin}${to.pathname}`).toBe(client.redirectUris[0]);
    expect(to.searchParams.get('error')).toBe(error);
    expect(to.searchParams.get('state')).toBe('st-1');
    expect(to.searchParams.get('iss')).toBe(WEB);
  });
});

describe('assistant OAuth: the token endpoint', () => {
  const ana = { id: 'oidc:ana@example.org', via: 'oidc' as const, subject: { slackUserGroups: [], email: 'ana@example.org', groups: ['sre'] } };
  const grant: CodeGrant = {
    clientId: client.clientId,
    clientName: 'Desk',
    redirectUri: client.redirectUris[0]!,
    codeChallenge: challenge,
    scope: 'read',
    resource: `${WEB}/mcp`,
    principal: ana,
  };
  const form = { grant_type: 'authorization_code', code: 'c0de', code_verifier: verifier, client_id: client.clientId, redirect_uri: client.redirectUris[0] };
  const exchange = (change: Record<string, unknown>) => {
    const read = readTokenRequest({ ...form, ...change });
    if (!read.ok) return read.error.error;
    return read.value.grant === 'authorization_code' ? checkCodeExchange(read.value, grant)?.error : 'not a code';
  };

  it.each([
    { name: 'the right request', change: {}, want: undefined },
    { name: 'with the right resource', change: { resource: `${WEB}/mcp` }, want: undefined },
    { name: 'a wrong verifier', change: { code_verifier: oidc.randomPKCECodeVerifier() }, want: 'invalid_grant' },
    { name: 'another client', change: { client_id: 'hcc_zzzzzzzzzzzzzzzzzzzzzz' }, want: 'invalid_grant' },
    { name: 'another redirect URI', change: { redirect_uri: 'http://127.0.0.1:33418/other' }, want: 'invalid_grant' },
    { name: 'another resource', change: { resource: 'https://x.example/mcp' }, want: 'invalid_target' },
    { name: 'no verifier', change: { code_verifier: undefined }, want: 'invalid_request' },
    { name: 'no client_id', change: { client_id: undefined }, want: 'invalid_request' },
    { name: 'client credentials', change: { grant_type: 'client_credentials' }, want: 'unsupported_grant_type' },
    { name: 'no grant type', change: { grant_type: undefined }, want: 'invalid_request' },
  ])('a code: $name → $want', ({ change, want }) => expect(exchange(change)).toBe(want));

  const family: RefreshGrant = {
    clientId: client.clientId,
    clientName: 'Desk',
    scope: 'propose',
    resource: `${WEB}/mcp`,
    principal: ana,
    family: 'f1',
    expiresAt: 10_000,
    accessTokenId: 'abcdef012345',
  };
  const refresh = (change: Record<string, unknown>, of: RefreshGrant = family, now = 5_000) => {
    const read = readTokenRequest({ grant_type: 'refresh_token', refresh_token: 'hcrt_x', client_id: client.clientId, ...change });
    if (!read.ok) return read.error.error;
    if (read.value.grant !== 'refresh_token') return 'not a refresh';
    const checked = checkRefresh(read.value, of, now);
    return 'error' in checked ? checked.error : checked.scope;
  };

  it.each([
    { name: 'the same scope', change: {}, of: family, now: 5_000, want: 'propose' },
    { name: 'narrowed to read', change: { scope: 'read' }, of: family, now: 5_000, want: 'read' },
    { name: 'widened past what was allowed', change: { scope: 'read propose' }, of: { ...family, scope: 'read' as const }, now: 5_000, want: 'invalid_scope' },
    { name: 'an unknown scope', change: { scope: 'admin' }, of: family, now: 5_000, want: 'invalid_scope' },
    { name: 'another client', change: { client_id: 'hcc_zzzzzzzzzzzzzzzzzzzzzz' }, of: family, now: 5_000, want: 'invalid_grant' },
    { name: 'after the consent’s end', change: {}, of: family, now: 10_000, want: 'invalid_grant' },
    { name: 'another resource', change: { resource: 'https://x.example/mcp' }, of: family, now: 5_000, want: 'invalid_target' },
    { name: 'no refresh token', change: { refresh_token: undefined }, of: family, now: 5_000, want: 'invalid_request' },
  ])('a refresh: $name → $want', ({ change, of, now, want }) => expect(refresh(change, of, now)).toBe(want));

  it('a token acts as the person who allowed it: a Slack user as token create makes them, an OIDC person by email and groups', () => {
    const desk = { id: client.clientId, name: 'Desk' };
    expect(tokenOwner({ id: 'slack:UANA', via: 'slack', subject: { slackUser: 'UANA', slackUserGroups: [] } }, desk)).toEqual({
      user: 'UANA',
      owner: { client: desk },
    });
    expect(tokenOwner(ana, desk)).toEqual({
      user: '',
      owner: { client: desk, person: { id: 'oidc:ana@example.org', email: 'ana@example.org', groups: ['sre'] } },
    });
  });
});

describe('assistant OAuth: metadata and the 401 challenge', () => {
  it('the resource and its authorization server point at each other', () => {
    const resource = protectedResourceMetadata(WEB);
    const as = authorizationServerMetadata(WEB);
    expect(resource.resource).toBe(`${WEB}/mcp`);
    expect(resource.authorization_servers).toEqual([as.issuer]);
    expect(as).toMatchObject({
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
    });
    expect(resourceMetadataUrl(WEB)).toBe(`${WEB}/.well-known/oauth-protected-resource/mcp`);
  });

  it('no token: where the metadata is, no error; a bad one: invalid_token and why, without quotes breaking out', () => {
    expect(bearerChallenge(WEB, { kind: 'unknown' }, false)).toBe(`Bearer resource_metadata="${WEB}/.well-known/oauth-protected-resource/mcp"`);
    const expired: TokenRecord = { id: 'abcdef012345', user: 'U1', scope: 'read', createdAt: 0, expiresAt: 1000 };
    const challengeLine = bearerChallenge(WEB, { kind: 'expired', record: expired }, true);
    expect(challengeLine).toContain('error="invalid_token", error_description="token abcdef012345 expired at 1970-01-01T00:00:01.000Z"');
    expect(bearerChallenge(undefined, { kind: 'unknown' }, true)).toMatch(/^Bearer realm="helmcrew", error="invalid_token", error_description="[^"]*"$/);
  });
});
