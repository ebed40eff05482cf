import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { startFakeSlack, type FakeSlack } from '../../src/dev/fake-slack/index.js';

/** The fake Slack's Sign in with Slack answers as Slack documents it, refusals included (HTTP 200, ok: false). */
describe('fake Slack: Sign in with Slack (OIDC)', () => {
  let slack: FakeSlack;
  const redirect = 'http://127.0.0.1:9/auth/callback';
  const verifier = 'a-code-verifier-long-enough-0123456789abcdefghijkl';
  const challenge = createHash('sha256').update(verifier).digest('base64url');

  beforeAll(async () => {
    slack = await startFakeSlack({ users: [{ id: 'U0ANA', name: 'ana' }], oidcClients: [{ clientId: 'app', clientSecret: 'secret' }] });
  });
  afterAll(() => slack?.stop());

  const codeFor = async (user = 'U0ANA') => {
    const query = new URLSearchParams({
      client_id: 'app',
      redirect_uri: redirect,
      response_type: 'code',
      scope: 'openid email profile',
      state: 's',
      nonce: 'n',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      login_hint: user,
    });
    const answer = await fetch(`${slack.origin}/openid/connect/authorize?${query}`, { redirect: 'manual' });
    expect(answer.status).toBe(302);
    const back = new URL(answer.headers.get('location')!);
    expect(back.searchParams.get('state')).toBe('s');
    return back.searchParams.get('code')!;
  };
  const token = async (params: Record<string, string>) =>
    (await (await fetch(`${slack.origin}/api/openid.connect.token`, { method: 'POST', body: new URLSearchParams(params) })).json()) as Record<string, unknown>;

  it('publishes discovery with Slack’s endpoints', async () => {
    const config = (await (await fetch(`${slack.origin}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(config).toMatchObject({
      issuer: slack.origin,
      authorization_endpoint: `${slack.origin}/openid/connect/authorize`,
      token_endpoint: `${slack.origin}/api/openid.connect.token`,
      userinfo_endpoint: `${slack.origin}/api/openid.connect.userInfo`,
      id_token_signing_alg_values_supported: ['RS256'],
    });
  });

  it('exchanges a code for an id_token with Slack’s claims, and answers userInfo', async () => {
    const answer = await token({
      client_id: 'app',
      client_secret: 'secret',
      code: await codeFor(),
      redirect_uri: redirect,
      code_verifier: verifier,
      grant_type: 'authorization_code',
    });
    expect(answer).toMatchObject({ ok: true, token_type: 'Bearer' });
    expect(decodeJwt(String(answer.id_token))).toMatchObject({
      iss: slack.origin,
      aud: 'app',
      nonce: 'n',
      'https://slack.com/user_id': 'U0ANA',
      'https://slack.com/team_id': 'T0HELMCREW',
      email: 'ana@example.org',
      email_verified: true,
    });
    const info = (await (
      await fetch(`${slack.origin}/api/openid.connect.userInfo`, { headers: { authorization: `Bearer ${String(answer.access_token)}` } })
    ).json()) as Record<string, unknown>;
    expect(info).toMatchObject({ ok: true, sub: 'U0ANA', 'https://slack.com/user_id': 'U0ANA' });
  });

  it.each([
    { name: 'a wrong client secret', change: { client_secret: 'nope' }, want: 'bad_client_secret' },
    { name: 'an unknown client', change: { client_id: 'other' }, want: 'invalid_client_id' },
    { name: 'another redirect_uri', change: { redirect_uri: 'http://127.0.0.1:9/elsewhere' }, want: 'bad_redirect_uri' },
    { name: 'a wrong PKCE verifier', change: { code_verifier: 'wrong-verifier-wrong-verifier-wrong-verifier' }, want: 'invalid_code_verifier' },
  ])('refuses $name', async ({ change, want }) => {
    const answer = await token({
      client_id: 'app',
      client_secret: 'secret',
      code: await codeFor(),
      redirect_uri: redirect,
      code_verifier: verifier,
      ...change,
    });
    expect(answer).toEqual({ ok: false, error: want });
  });

  it('a code is used once', async () => {
    const code = await codeFor();
    const params = { client_id: 'app', client_secret: 'secret', code, redirect_uri: redirect, code_verifier: verifier };
    expect((await token(params)).ok).toBe(true);
    expect(await token(params)).toEqual({ ok: false, error: 'invalid_code' });
  });
});
