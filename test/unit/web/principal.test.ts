import { describe, expect, it } from 'vitest';
import { principalFromClaims, type Claims } from '../../../src/web/auth/principal.js';

const slack = (more: Claims = {}): Claims => ({
  sub: 'U0ANA',
  'https://slack.com/user_id': 'U0ANA',
  'https://slack.com/team_id': 'T0HELMCREW',
  name: 'ana',
  ...more,
});

describe('principalFromClaims', () => {
  it.each<{ name: string; via: 'slack' | 'oidc'; claims: Claims; want: object }>([
    {
      name: 'Sign in with Slack: the Slack user, as in chat',
      via: 'slack',
      claims: slack(),
      want: { ok: true, principal: { id: 'slack:U0ANA', name: '@ana', via: 'slack', subject: { slackUser: 'U0ANA', slackUserGroups: [] } } },
    },
    {
      name: 'Slack without its user claim: refused',
      via: 'slack',
      claims: { sub: 'U0ANA', email: 'ana@example.org', email_verified: true },
      want: { ok: false, reason: expect.stringContaining('https://slack.com/user_id') },
    },
    {
      name: 'Slack user of another workspace: refused',
      via: 'slack',
      claims: slack({ 'https://slack.com/team_id': 'T0OTHER' }),
      want: { ok: false, reason: expect.stringContaining('another Slack workspace (T0OTHER)') },
    },
    {
      name: 'a verified email',
      via: 'oidc',
      claims: { sub: 's1', email: 'ana@example.org', email_verified: true },
      want: { ok: true, principal: { id: 'oidc:ana@example.org', name: 'ana@example.org', via: 'oidc', subject: { email: 'ana@example.org', groups: [] } } },
    },
    {
      name: 'email_verified as the string "true"',
      via: 'oidc',
      claims: { sub: 's1', email: 'ana@example.org', email_verified: 'true' },
      want: { ok: true, principal: { subject: { email: 'ana@example.org' } } },
    },
    {
      name: 'an unverified email is ignored: groups still name the person',
      via: 'oidc',
      claims: { sub: 's2', email: 'eve@example.org', email_verified: false, groups: ['dev'], preferred_username: 'eve' },
      want: { ok: true, principal: { id: 'oidc:s2', name: 'eve', subject: { email: undefined, groups: ['dev'] } } },
    },
    {
      name: 'an unverified email and no groups: refused, saying why',
      via: 'oidc',
      claims: { sub: 's3', email: 'eve@example.org' },
      want: { ok: false, reason: expect.stringContaining('its email eve@example.org is not verified') },
    },
    {
      name: 'groups only',
      via: 'oidc',
      claims: { sub: 's4', groups: ['platform-oncall', 7, ''] },
      want: { ok: true, principal: { id: 'oidc:s4', name: 's4', subject: { groups: ['platform-oncall'] } } },
    },
    {
      name: 'nothing usable: refused',
      via: 'oidc',
      claims: { sub: 's5' },
      want: { ok: false, reason: 'the sign-in provider named neither a verified email nor any groups for you, so no Team can name you' },
    },
  ])('$name', ({ via, claims, want }) => {
    expect(principalFromClaims(via, claims, { slackTeamId: 'T0HELMCREW' })).toMatchObject(want);
  });
});
