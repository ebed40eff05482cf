import { describe, expect, it } from 'vitest';
import { readWebConfig } from '../../../src/web/server/config.js';

const base = {
  REDIS_URL: 'redis://127.0.0.1:6379',
  HELMCREW_WEB_URL: 'https://helmcrew.example.org/',
  HELMCREW_OIDC_ISSUER_URL: 'https://id.example.org',
  HELMCREW_OIDC_CLIENT_ID: 'helmcrew',
  HELMCREW_OIDC_CLIENT_SECRET: 's3cret',
};
const files: Record<string, string> = { '/run/secret': 'from-file\n', '/run/empty': '  ' };
const read = (env: Record<string, string | undefined>) =>
  readWebConfig(env, '0.0.0.0:8080', (path) => {
    if (path in files) return files[path]!;
    throw Object.assign(new Error('no'), { code: 'ENOENT' });
  });

describe('readWebConfig', () => {
  it('reads the settings: public URL without a trailing slash, Secure cookies on https, 12 h sessions', () => {
    expect(read(base)).toMatchObject({
      listen: { host: '0.0.0.0', port: 8080 },
      publicUrl: 'https://helmcrew.example.org',
      secureCookies: true,
      sessionSeconds: 43200,
      providers: [{ id: 'oidc', clientId: 'helmcrew', clientSecret: 's3cret', scopes: 'openid email profile' }],
    });
    // No HELMCREW_FLEET_KEYS_DIR: no fleet, the own cluster alone.
    expect(read(base).fleet).toBeUndefined();
  });

  it.each([
    { name: 'plain http on loopback: cookies not Secure', env: { HELMCREW_WEB_URL: 'http://127.0.0.1:8080' }, want: { secureCookies: false } },
    {
      name: 'the secret from a file',
      env: { HELMCREW_OIDC_CLIENT_SECRET: '', HELMCREW_OIDC_CLIENT_SECRET_FILE: '/run/secret' },
      want: { providers: [{ clientSecret: 'from-file' }] },
    },
    {
      name: 'Sign in with Slack beside the OIDC provider, Slack’s issuer by default',
      env: { HELMCREW_SLACK_OIDC_CLIENT_ID: '1.2', HELMCREW_SLACK_OIDC_CLIENT_SECRET: 'x' },
      want: { providers: [{ id: 'oidc' }, { id: 'slack', issuer: new URL('https://slack.com') }] },
    },
    { name: 'a listen address', env: { HELMCREW_WEB_LISTEN: '[::1]:0' }, want: { listen: { host: '::1', port: 0 } } },
    {
      name: 'a fleet: the keys directory, the own cluster, the shared prefix, the agents’ time-out (as the bot reads them)',
      env: { HELMCREW_FLEET_KEYS_DIR: '/etc/keys', HELMCREW_CLUSTER_NAME: 'home', HELMCREW_QUEUE_PREFIX: 'hc', HELMCREW_FLEET_TIMEOUT_SECONDS: '7' },
      want: { fleet: { own: 'home', fleetPrefix: 'hc', keysDir: '/etc/keys', timeoutMs: 7000 } },
    },
  ])('$name', ({ env, want }) => expect(read({ ...base, ...env })).toMatchObject(want));

  it.each([
    { env: { HELMCREW_WEB_URL: '' }, want: 'HELMCREW_WEB_URL is not set' },
    { env: { HELMCREW_WEB_URL: 'http://helmcrew.example.org' }, want: 'HELMCREW_WEB_URL must be an https URL (plain http only on a loopback address)' },
    { env: { HELMCREW_OIDC_ISSUER_URL: '' }, want: 'no sign-in provider: set HELMCREW_OIDC_ISSUER_URL' },
    { env: { HELMCREW_OIDC_CLIENT_ID: '' }, want: 'HELMCREW_OIDC_CLIENT_ID is not set' },
    { env: { HELMCREW_OIDC_CLIENT_SECRET: '' }, want: 'HELMCREW_OIDC_CLIENT_SECRET is not set (or HELMCREW_OIDC_CLIENT_SECRET_FILE' },
    {
      env: { HELMCREW_OIDC_CLIENT_SECRET: '', HELMCREW_OIDC_CLIENT_SECRET_FILE: '/run/none' },
      want: 'HELMCREW_OIDC_CLIENT_SECRET_FILE: cannot read /run/none (ENOENT)',
    },
    { env: { HELMCREW_OIDC_CLIENT_SECRET: '', HELMCREW_OIDC_CLIENT_SECRET_FILE: '/run/empty' }, want: 'HELMCREW_OIDC_CLIENT_SECRET_FILE: /run/empty is empty' },
    { env: { HELMCREW_OIDC_SCOPES: 'email' }, want: 'HELMCREW_OIDC_SCOPES must include openid' },
    { env: { HELMCREW_WEB_SESSION_SECONDS: '86400' }, want: 'HELMCREW_WEB_SESSION_SECONDS must be between 60 and 43200 (12 h)' },
    { env: { HELMCREW_WEB_LISTEN: 'nowhere' }, want: 'HELMCREW_WEB_LISTEN must be host:port' },
    { env: { HELMCREW_SLACK_TEAM_ID: 'workspace' }, want: 'HELMCREW_SLACK_TEAM_ID must be a Slack workspace id' },
    {
      env: { HELMCREW_FLEET_KEYS_DIR: '/etc/keys', HELMCREW_FLEET_TIMEOUT_SECONDS: '0' },
      want: 'HELMCREW_FLEET_TIMEOUT_SECONDS must be a whole number from 1 to 300',
    },
  ])('refuses: $want', ({ env, want }) => {
    expect(() => read({ ...base, ...env })).toThrow(want);
  });

  it('never echoes a secret in an error', () => {
    expect(() => read({ ...base, HELMCREW_OIDC_SCOPES: 'email' })).not.toThrow(/s3cret/);
  });
});
