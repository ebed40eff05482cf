import type { WebPrincipal } from '../contract.js';

/**
 * Who a sign-in is, from the claims of the ID token (merged with userinfo's): pure, so every rule is a
 * unit row. Sign in with Slack names a Slack user (the same principal as in chat); any other OIDC
 * provider names a person by a verified email and its groups. An unverified email is ignored: anyone
 * can type one into an account at some providers.
 */

export type Claims = Record<string, unknown>;

export const SLACK_USER_CLAIM = 'https://slack.com/user_id';
export const SLACK_TEAM_CLAIM = 'https://slack.com/team_id';

export type PrincipalDecision = { ok: true; principal: WebPrincipal } | { ok: false; reason: string };

export interface PrincipalRules {
  /** Sign in with Slack: the workspace the bot serves; a user of another workspace is refused. Absent: any. */
  slackTeamId?: string;
}

export function principalFromClaims(via: 'slack' | 'oidc', claims: Claims, rules: PrincipalRules = {}): PrincipalDecision {
  return via === 'slack' ? slackPrincipal(claims, rules) : oidcPrincipal(claims);
}

function slackPrincipal(claims: Claims, rules: PrincipalRules): PrincipalDecision {
  const user = claims[SLACK_USER_CLAIM];
  const team = claims[SLACK_TEAM_CLAIM];
  if (typeof user !== 'string' || !/^[UW][A-Z0-9]+$/.test(user))
    return { ok: false, reason: `Slack did not say which Slack user you are (no ${SLACK_USER_CLAIM} claim)` };
  if (rules.slackTeamId && team !== rules.slackTeamId)
    return {
      ok: false,
      reason: `you signed in to another Slack workspace (${typeof team === 'string' ? team : 'unknown'}); helmcrew serves ${rules.slackTeamId}`,
    };
  const name = text(claims.name) ?? text(claims.given_name) ?? user;
  return { ok: true, principal: { id: `slack:${user}`, name: `@${name}`, via: 'slack', subject: { slackUser: user, slackUserGroups: [] } } };
}

function oidcPrincipal(claims: Claims): PrincipalDecision {
  const email = verified(claims) ? text(claims.email) : undefined;
  const groups = Array.isArray(claims.groups) ? claims.groups.filter((g): g is string => typeof g === 'string' && g.trim() !== '') : [];
  const sub = text(claims.sub);
  if (!email && groups.length === 0) {
    const unverified = text(claims.email) && !verified(claims) ? ` (its email ${text(claims.email)} is not verified)` : '';
    return { ok: false, reason: `the sign-in provider named neither a verified email nor any groups for you${unverified}, so no Team can name you` };
  }
  const handle = email ?? text(claims.preferred_username) ?? sub ?? 'unknown';
  return {
    ok: true,
    principal: { id: `oidc:${email ?? sub ?? handle}`, name: handle, via: 'oidc', subject: { slackUserGroups: [], email, groups } },
  };
}

/** `email_verified` true; a few providers send the string "true". */
function verified(claims: Claims): boolean {
  return claims.email_verified === true || claims.email_verified === 'true';
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}
