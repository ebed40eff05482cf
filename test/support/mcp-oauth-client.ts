import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import * as oidc from 'openid-client';
import { freePort } from '../../src/dev/free-port.js';

/** What an MCP client keeps between its steps (the SDK asks for each through OAuthClientProvider); the redirect is only recorded. */
export class TestClientAuth implements OAuthClientProvider {
  info?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  authorizationUrl?: URL;
  constructor(
    readonly redirectUrl: string,
    readonly name = 'Test <script>alert(1)</script> assistant',
  ) {}
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: this.name, redirect_uris: [this.redirectUrl], token_endpoint_auth_method: 'none' };
  }
  state = () => 'state-42';
  clientInformation = () => this.info;
  saveClientInformation = (info: OAuthClientInformationMixed) => void (this.info = info);
  tokens = () => this.saved;
  saveTokens = (tokens: OAuthTokens) => void (this.saved = tokens);
  redirectToAuthorization = (url: URL) => void (this.authorizationUrl = url);
  saveCodeVerifier = (verifier: string) => void (this.verifier = verifier);
  codeVerifier = () => this.verifier;
}

/**
 * A client registered by hand over HTTP (RFC 7591), its PKCE pair, the authorization request's query
 * (read scope, for the /mcp resource) and a code exchange at the token endpoint.
 */
export async function registerByHand(base: string) {
  const redirectUri = `http://127.0.0.1:${await freePort()}/cb`;
  const registered = await fetch(`${base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [redirectUri], client_name: 'by hand', token_endpoint_auth_method: 'none' }),
  });
  if (registered.status !== 201) throw new Error(`registration answered ${registered.status}: ${await registered.text()}`);
  const { client_id } = (await registered.json()) as { client_id: string };
  const verifier = oidc.randomPKCECodeVerifier();
  const query = new URLSearchParams({
    response_type: 'code',
    client_id,
    redirect_uri: redirectUri,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    scope: 'read',
    state: 'by-hand',
    resource: `${base}/mcp`,
  });
  const exchange = (code: string, codeVerifier: string) =>
    fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        code_verifier: codeVerifier,
        client_id,
        redirect_uri: redirectUri,
        resource: `${base}/mcp`,
      }),
    });
  return { client_id, redirectUri, verifier, query, exchange };
}
