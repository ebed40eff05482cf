import type { Permission, Team, Verb } from '../../api/team.js';

/**
 * The part of a Team the bot needs to decide who may do what: `spec.members` and
 * `spec.permissions` of the Team API. Teams are read at the edge and narrowed to this, so the
 * decision stays a pure function.
 */

export type PermissionVerb = Verb;
export type PermissionRule = Permission;

export interface TeamPolicy {
  name: string;
  members: { slackUsers?: string[]; slackUserGroups?: string[]; emails?: string[]; groups?: string[] };
  permissions: PermissionRule[];
  /** The Team's Slack channels (`spec.channels[].slack`): where an assistant's proposal asks it to approve. */
  slackChannels?: string[];
}

export function teamPolicy(team: Team): TeamPolicy {
  const slackChannels = (team.spec.channels ?? []).flatMap((c) => (c.slack ? [c.slack] : []));
  return {
    name: team.metadata.name,
    members: team.spec.members ?? {},
    permissions: team.spec.permissions ?? [],
    ...(slackChannels.length ? { slackChannels } : {}),
  };
}

/**
 * Who asks: a Slack user and the user groups Slack says they are in (chat, Sign in with Slack), or a
 * person of the web's OIDC provider: a verified email and the provider's groups.
 */
export interface Subject {
  slackUser?: string;
  slackUserGroups: string[];
  /** Only a verified one (the web's sign-in drops an unverified email). */
  email?: string;
  /** The OIDC provider's `groups` claim. */
  groups?: string[];
}

/** Whether two subjects are the same person (the two-person rule): the same Slack user, or the same verified email. */
export function sameSubject(a: Subject, b: Subject): boolean {
  if (a.slackUser && a.slackUser === b.slackUser) return true;
  return !!a.email && !!b.email && a.email.toLowerCase() === b.email.toLowerCase();
}

/** How a refusal names the subject. */
export function describeSubject(subject: Subject): string {
  if (subject.slackUser) return `your Slack user ${subject.slackUser}`;
  if (subject.email) return `your email ${subject.email}`;
  return 'your sign-in';
}

/**
 * What the verb acts on. A release, a namespace (list, freeze), a Team's or a chart's releases
 * (freeze), or everything (list, freeze all); in `cluster` (a fleet: the command's cluster, or a
 * glob for a fleet freeze), absent: the bot's own cluster (`default` when unnamed).
 */
export type AuthzTarget = (
  | { kind: 'release'; namespace: string; name: string; chart: string }
  | { kind: 'namespace'; namespace: string }
  | { kind: 'team'; team: string }
  | { kind: 'chart'; chart: string }
  | { kind: 'all' }
) & { cluster?: string };
