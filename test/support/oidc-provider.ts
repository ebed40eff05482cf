import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/**
 * A real OpenID Connect provider for tests (panva's oidc-provider, the one openid-client is
 * certified against) on 127.0.0.1: authorization code with PKCE required, its development login
 * page (any password; the login is the account id) and consent page, and accounts with emails
 * (verified or not) and groups. Stopping it is "the provider is down".
 */

export interface TestOidcAccount {
  /** Typed into the login page's `login` field. */
  id: string;
  email?: string;
  emailVerified?: boolean;
  groups?: string[];
}

export interface TestOidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Registers (or replaces) an account. */
  addAccount(account: TestOidcAccount): void;
  stop(): Promise<void>;
}

export async function startTestOidcProvider(opts: { redirectUri: string; clientId?: string; clientSecret?: string }): Promise<TestOidcProvider> {
  const accounts = new Map<string, TestOidcAccount>();
  const clientId = opts.clientId ?? 'helmcrew-web';
  const clientSecret = opts.clientSecret ?? 'test-client-secret-0123456789';
  // Listen first: the issuer holds the port.
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end();
  const server: Server = createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, () => resolve());
  });
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [opts.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    pkce: { required: () => true },
    scopes: ['openid', 'email', 'profile', 'groups'],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'preferred_username'], groups: ['groups'] },
    features: { devInteractions: { enabled: true } },
    cookies: { keys: ['test-only-cookie-key-0123456789abcdef'] },
    findAccount: (_ctx: unknown, id: string) => {
      const account = accounts.get(id);
      if (!account) return undefined;
      return {
        accountId: id,
        claims: () => ({
          sub: id,
          preferred_username: id,
          ...(account.email ? { email: account.email, email_verified: account.emailVerified ?? false } : {}),
          ...(account.groups ? { groups: account.groups } : {}),
        }),
      };
    },
  });
  // The test provider is plain http on loopback; it must not refuse for that.
  provider.proxy = false;
  const callback = provider.callback();
  handler = (req, res) => callback(req, res);
  return {
    issuer,
    clientId,
    clientSecret,
    addAccount: (account) => void accounts.set(account.id, account),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
