/**
 * Sign in with Slack, as Slack documents it, for the fake: OIDC discovery, the authorize page
 * (`/openid/connect/authorize`: the fake shows the workspace's users as buttons, so a test's browser
 * picks who signs in; `login_hint=U…` picks at once), the `openid.connect.token` and
 * `openid.connect.userInfo` Web API methods, and the JWKS. The id_token is signed RS256 and carries
 * Slack's claims (`https://slack.com/user_id`, `https://slack.com/team_id`, email, name). The issuer
 * is the fake's origin (Slack's is https://slack.com).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import type { FakeUser } from './workspace.js';

export interface FakeOidcClient {
  clientId: string;
  clientSecret: string;
}

export interface FakeOidcUser extends FakeUser {
  email?: string;
}

interface IssuedCode {
  clientId: string;
  redirectUri: string;
  user: string;
  nonce?: string;
  codeChallenge?: string;
  expiresAt: number;
}

export interface FakeSlackOidc {
  /** Answers the request when it is one of Sign in with Slack's; false otherwise. */
  handle(req: IncomingMessage, res: ServerResponse, url: URL, body: () => Promise<string>): Promise<boolean>;
  /** Every openid.connect.token call the fake answered, for tests (codes, not secrets). */
  readonly tokenCalls: Array<{ ok: boolean; error?: string }>;
}

const CODE_TTL_MS = 60_000;

export async function fakeSlackOidc(opts: {
  origin: () => string;
  teamId: string;
  teamName: string;
  clients: FakeOidcClient[];
  users: () => Map<string, FakeOidcUser>;
  now: () => number;
}): Promise<FakeSlackOidc> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'fake-slack-1', alg: 'RS256', use: 'sig' };
  const codes = new Map<string, IssuedCode>();
  const accessTokens = new Map<string, string>();
  const tokenCalls: FakeSlackOidc['tokenCalls'] = [];

  const claimsOf = (user: FakeOidcUser): Record<string, unknown> => ({
    sub: user.id,
    'https://slack.com/user_id': user.id,
    'https://slack.com/team_id': opts.teamId,
    'https://slack.com/team_name': opts.teamName,
    email: user.email ?? `${user.name}@example.org`,
    email_verified: true,
    name: user.realName ?? user.name,
    given_name: user.name,
    locale: 'en-US',
  });

  const configuration = () => {
    const origin = opts.origin();
    return {
      issuer: origin,
      authorization_endpoint: `${origin}/openid/connect/authorize`,
      token_endpoint: `${origin}/api/openid.connect.token`,
      userinfo_endpoint: `${origin}/api/openid.connect.userInfo`,
      jwks_uri: `${origin}/openid/connect/keys`,
      scopes_supported: ['openid', 'profile', 'email'],
      response_types_supported: ['code'],
      response_modes_supported: ['form_post'],
      grant_types_supported: ['authorization_code'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
      claims_supported: ['sub', 'auth_time', 'iss'],
      claims_parameter_supported: false,
      request_parameter_supported: false,
      request_uri_parameter_supported: true,
      token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
    };
  };

  const authorize = async (req: IncomingMessage, res: ServerResponse, url: URL, body: () => Promise<string>) => {
    const params = req.method === 'POST' ? new URLSearchParams(await body()) : url.searchParams;
    const client = opts.clients.find((c) => c.clientId === params.get('client_id'));
    const redirectUri = params.get('redirect_uri') ?? '';
    if (!client || !/^https?:\/\//.test(redirectUri) || params.get('response_type') !== 'code' || !(params.get('scope') ?? '').split(' ').includes('openid'))
      return html(res, 400, '<h1>Sign in with Slack</h1><p>invalid_request: unknown client_id, or no redirect_uri, response_type=code or openid scope</p>');
    const picked = params.get('user') ?? params.get('login_hint');
    const user = picked ? opts.users().get(picked) : undefined;
    if (!user) {
      const hidden = [...params.entries()]
        .filter(([k]) => k !== 'user')
        .map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}">`)
        .join('');
      const buttons = [...opts.users().values()]
        .map((u) => `<button type="submit" name="user" value="${esc(u.id)}" id="user-${esc(u.id)}">${esc(u.name)}</button>`)
        .join(' ');
      return html(
        res,
        200,
        `<h1>Sign in to ${esc(opts.teamName)} (fake Slack)</h1><form method="post" action="/openid/connect/authorize">${hidden}${buttons}</form>`,
      );
    }
    const code = randomBytes(24).toString('hex');
    codes.set(code, {
      clientId: client.clientId,
      redirectUri,
      user: user.id,
      nonce: params.get('nonce') ?? undefined,
      codeChallenge: params.get('code_challenge') ?? undefined,
      expiresAt: opts.now() + CODE_TTL_MS,
    });
    const back = new URL(redirectUri);
    back.searchParams.set('code', code);
    if (params.get('state') !== null) back.searchParams.set('state', params.get('state')!);
    res.writeHead(302, { location: back.href });
    res.end();
  };

  const token = async (req: IncomingMessage, res: ServerResponse, body: () => Promise<string>) => {
    const params = new URLSearchParams(await body());
    const basic = /^Basic\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    const [basicId, basicSecret] = basic ? Buffer.from(basic[1]!, 'base64').toString('utf8').split(':').map(decodeURIComponent) : [];
    const clientId = params.get('client_id') ?? basicId;
    const secret = params.get('client_secret') ?? basicSecret;
    const answer = (error: string) => {
      tokenCalls.push({ ok: false, error });
      // Slack answers a failed Web API call with HTTP 200 and ok: false.
      return json(res, 200, { ok: false, error });
    };
    const client = opts.clients.find((c) => c.clientId === clientId);
    if (!client) return answer('invalid_client_id');
    if (client.clientSecret !== secret) return answer('bad_client_secret');
    const code = codes.get(params.get('code') ?? '');
    codes.delete(params.get('code') ?? '');
    if (!code || code.expiresAt < opts.now() || code.clientId !== client.clientId) return answer('invalid_code');
    if (params.get('redirect_uri') !== code.redirectUri) return answer('bad_redirect_uri');
    if (code.codeChallenge) {
      const verifier = params.get('code_verifier') ?? '';
      if (createHash('sha256').update(verifier).digest('base64url') !== code.codeChallenge) return answer('invalid_code_verifier');
    }
    const user = opts.users().get(code.user)!;
    const accessToken = `xoxp-fake-${randomBytes(16).toString('hex')}`;
    accessTokens.set(accessToken, user.id);
    const nowSeconds = Math.floor(opts.now() / 1000);
    const idToken = await new SignJWT({ ...claimsOf(user), nonce: code.nonce, auth_time: nowSeconds })
      .setProtectedHeader({ alg: 'RS256', kid: jwk.kid, typ: 'JWT' })
      .setIssuer(opts.origin())
      .setAudience(client.clientId)
      .setIssuedAt(nowSeconds)
      .setExpirationTime(nowSeconds + 300)
      .sign(privateKey);
    tokenCalls.push({ ok: true });
    return json(res, 200, { ok: true, access_token: accessToken, token_type: 'Bearer', id_token: idToken });
  };

  const userInfo = (req: IncomingMessage, res: ServerResponse) => {
    const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const user = bearer ? opts.users().get(accessTokens.get(bearer) ?? '') : undefined;
    if (!user) return json(res, 200, { ok: false, error: 'invalid_auth' });
    return json(res, 200, { ok: true, ...claimsOf(user) });
  };

  return {
    tokenCalls,
    async handle(req, res, url, body) {
      switch (url.pathname) {
        case '/.well-known/openid-configuration':
          json(res, 200, configuration());
          return true;
        case '/openid/connect/keys':
          json(res, 200, { keys: [jwk] });
          return true;
        case '/openid/connect/authorize':
          await authorize(req, res, url, body);
          return true;
        case '/api/openid.connect.token':
          await token(req, res, body);
          return true;
        case '/api/openid.connect.userInfo':
          userInfo(req, res);
          return true;
        default:
          return false;
      }
    },
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function html(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
  res.end(`<!doctype html><html><head><meta charset="utf-8"><title>Sign in with Slack</title></head><body>${body}</body></html>`);
}

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
