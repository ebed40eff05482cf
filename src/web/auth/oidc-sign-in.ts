import type * as OpenId from 'openid-client';
import type { OidcProviderConfig } from '../server/config.js';
import type { Claims } from './principal.js';
import { newSecret, type PendingLogin } from './sessions.js';

/**
 * The OpenID Connect side of sign-in, through openid-client: discovery, the authorization URL
 * (code flow with PKCE S256, state and nonce), and at the callback the code exchange, where
 * openid-client checks state, nonce, issuer, audience, expiry and the ID token's signature.
 * Errors become two kinds a page can be chosen by: the provider does not answer (503), or the
 * sign-in is refused (400).
 */

export class ProviderUnavailable extends Error {
  constructor(
    readonly provider: string,
    readonly detail: string,
  ) {
    super(`the sign-in provider ${provider} does not answer (${detail})`);
  }
}

export class SignInRefused extends Error {}

/** How long a provider has to answer one request before its page says it does not answer. */
const PROVIDER_TIMEOUT_SECONDS = 5;

/** openid-client and jose load at the first sign-in, not with the pages: signed-in browsers never need them (docs/performance.md). */
const openId = () => import('openid-client');

export class OidcSignIn {
  private readonly configs = new Map<string, OpenId.Configuration>();

  constructor(
    private readonly providers: readonly OidcProviderConfig[],
    private readonly redirectUri: string,
  ) {}

  provider(id: string): OidcProviderConfig | undefined {
    return this.providers.find((p) => p.id === id);
  }

  /**
   * Where to send the browser, and what the callback must check. Discovery runs on every start, so a
   * provider that went down is said on the sign-in page, not as a browser error at the provider.
   */
  async start(provider: OidcProviderConfig, returnTo: string): Promise<{ url: URL; login: PendingLogin }> {
    const config = await this.discover(provider);
    const client = await openId();
    const login: PendingLogin = { provider: provider.id, state: newSecret(), nonce: newSecret(), codeVerifier: client.randomPKCECodeVerifier(), returnTo };
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: this.redirectUri,
      scope: provider.scopes,
      state: login.state,
      nonce: login.nonce,
      code_challenge: await client.calculatePKCECodeChallenge(login.codeVerifier),
      code_challenge_method: 'S256',
    });
    return { url, login };
  }

  /** The ID token's claims, merged under userinfo's when the provider has the endpoint (groups often live there). */
  async finish(login: PendingLogin, query: string): Promise<Claims> {
    // The callback as the provider sent it, on the registered redirect URI (the token request repeats it).
    const callbackUrl = new URL(this.redirectUri);
    callbackUrl.search = query;
    const provider = this.provider(login.provider);
    if (!provider) throw new SignInRefused(`sign-in with ${login.provider} is not configured`);
    const config = this.configs.get(provider.id) ?? (await this.discover(provider));
    const client = await openId();
    try {
      const tokens = await client.authorizationCodeGrant(
        config,
        callbackUrl,
        {
          pkceCodeVerifier: login.codeVerifier,
          expectedState: login.state,
          expectedNonce: login.nonce,
          idTokenExpected: true,
        },
        { redirect_uri: this.redirectUri },
      );
      const idClaims = tokens.claims() as Claims;
      if (!config.serverMetadata().userinfo_endpoint) return idClaims;
      const info = (await client.fetchUserInfo(config, tokens.access_token, String(idClaims.sub))) as Claims;
      // The ID token's verification claims stay authoritative; userinfo adds groups, email and names.
      return { ...info, ...withoutUndefined(idClaims), groups: idClaims.groups ?? info.groups };
    } catch (error) {
      throw classify(client, provider, error);
    }
  }

  private async discover(provider: OidcProviderConfig): Promise<OpenId.Configuration> {
    const client = await openId();
    try {
      const config = await client.discovery(
        provider.issuer,
        provider.clientId,
        { client_secret: provider.clientSecret },
        client.ClientSecretPost(provider.clientSecret),
        {
          timeout: PROVIDER_TIMEOUT_SECONDS,
          // Plain http only reaches here for a loopback issuer (readWebConfig refuses any other).
          execute: provider.issuer.protocol === 'http:' ? [client.allowInsecureRequests] : [],
        },
      );
      this.configs.set(provider.id, config);
      return config;
    } catch (error) {
      throw new ProviderUnavailable(provider.label, describe(error));
    }
  }
}

function classify(client: typeof OpenId, provider: OidcProviderConfig, error: unknown): Error {
  if (error instanceof ProviderUnavailable) return error;
  if (isNetwork(error)) return new ProviderUnavailable(provider.label, describe(error));
  if (error instanceof client.AuthorizationResponseError) return new SignInRefused(`the provider refused the sign-in (${error.error})`);
  if (error instanceof client.ResponseBodyError) return new SignInRefused(`the provider refused the sign-in code (${error.error})`);
  return new SignInRefused(`the sign-in answer did not check out: ${error instanceof Error ? error.message : String(error)}`);
}

function isNetwork(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'TimeoutError' || error.name === 'AbortError') return true;
  return error instanceof TypeError && /fetch failed/i.test(error.message);
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error.cause as { code?: string; message?: string } | undefined) ?? undefined;
  return cause?.code ?? cause?.message ?? error.message;
}

function withoutUndefined(claims: Claims): Claims {
  return Object.fromEntries(Object.entries(claims).filter(([, v]) => v !== undefined));
}
