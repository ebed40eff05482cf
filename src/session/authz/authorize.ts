import { clustersMatch, describeClusters } from '../../core/fleet/cluster-match.js';
import { describeSubject, sameSubject, type AuthzTarget, type PermissionRule, type PermissionVerb, type Subject, type TeamPolicy } from './policy-types.js';

/**
 * Default deny: a subject may use a verb on a target only if a Team it belongs to has a rule
 * granting that verb there. A refusal says what is missing. Pure.
 */

export type AuthzDecision = { allowed: true; teams: string[]; requireApproval: boolean } | { allowed: false; reason: string };

export function teamsOf(subject: Subject, teams: readonly TeamPolicy[]): TeamPolicy[] {
  const email = subject.email?.toLowerCase();
  return teams.filter(
    (team) =>
      (subject.slackUser !== undefined && (team.members.slackUsers ?? []).includes(subject.slackUser)) ||
      (team.members.slackUserGroups ?? []).some((group) => subject.slackUserGroups.includes(group)) ||
      (email !== undefined && (team.members.emails ?? []).some((member) => member.toLowerCase() === email)) ||
      (team.members.groups ?? []).some((group) => (subject.groups ?? []).includes(group)),
  );
}

export function authorize(subject: Subject, verb: PermissionVerb, target: AuthzTarget, teams: readonly TeamPolicy[]): AuthzDecision {
  const mine = teamsOf(subject, teams);
  const what = `${verb} ${describeTarget(target)}`;
  if (mine.length === 0)
    return {
      allowed: false,
      reason: `you may not ${what}: you are in no Team (neither ${describeSubject(subject)} nor your ${subject.slackUser ? 'user groups' : 'groups'} are members of one)`,
    };
  const withVerb = mine.flatMap((team) => team.permissions.filter((rule) => rule.verbs.includes(verb)).map((rule) => ({ team: team.name, rule })));
  if (withVerb.length === 0) return { allowed: false, reason: `you may not ${what}: none of your Teams (${names(mine)}) grants "${verb}"` };
  const granting = withVerb.filter(({ team, rule }) => ruleCovers(rule, target, team));
  if (granting.length === 0) {
    const where = withVerb.map(({ team, rule }) => `${team}: ${describeRule(rule)}`).join('; ');
    return { allowed: false, reason: `you may not ${what}: your Teams grant "${verb}" only for ${where}` };
  }
  return {
    allowed: true,
    teams: [...new Set(granting.map(({ team }) => team))],
    // Approval is needed only when every rule that grants it asks for one.
    requireApproval: granting.every(({ rule }) => rule.requireApproval === true),
  };
}

/**
 * The two-person rule: the approver must be another person, and authorized for the same verb
 * on the same target in their own right.
 */
export function authorizeApproval(
  requester: Subject,
  approver: Subject,
  verb: PermissionVerb,
  target: AuthzTarget,
  teams: readonly TeamPolicy[],
): AuthzDecision {
  // The same Slack user or the same verified email; an empty Slack id (a web sign-in without Slack) is nobody's:
  // the surfaces also compare people by their actor id (flow/plan-confirmations.ts).
  if (sameSubject(approver, requester)) return { allowed: false, reason: `you asked for this ${verb}; a second, different person must approve it` };
  const decision = authorize(approver, verb, target, teams);
  if (!decision.allowed) return { allowed: false, reason: decision.reason.replace(/^you may not/, 'you may not approve') };
  return { allowed: true, teams: decision.teams, requireApproval: false };
}

/** Does this rule (of Team `team`) cover the target? */
export function ruleCovers(rule: PermissionRule, target: AuthzTarget, team?: string): boolean {
  // A rule without `clusters` grants in every cluster; with it, only in the clusters it names.
  if (!clustersMatch(rule.clusters, target.cluster)) return false;
  const anyNamespace = !rule.namespaces || rule.namespaces.includes('*');
  const unrestricted = anyNamespace && !rule.releases && !rule.charts;
  switch (target.kind) {
    case 'all':
      // Everything at once: only a rule without any narrowing grants it.
      return unrestricted;
    case 'team':
      // A Team's own members may freeze its releases; other Teams only with an unrestricted rule.
      return team === target.team || unrestricted;
    case 'chart':
      return anyNamespace && !rule.releases && (!rule.charts || rule.charts.includes(target.chart));
    case 'namespace':
      return (anyNamespace || rule.namespaces!.includes(target.namespace)) && !rule.releases && !rule.charts;
    case 'release':
      return (
        (anyNamespace || rule.namespaces!.includes(target.namespace)) &&
        (!rule.releases || rule.releases.includes(target.name) || rule.releases.includes(`${target.namespace}/${target.name}`)) &&
        (!rule.charts || rule.charts.includes(target.chart))
      );
  }
}

function describeTarget(target: AuthzTarget): string {
  const where = describeWhat(target);
  return target.cluster === undefined ? where : `${where} in cluster ${target.cluster}`;
}

function describeWhat(target: AuthzTarget): string {
  switch (target.kind) {
    case 'all':
      return 'in every namespace';
    case 'team':
      return `on team ${target.team}'s releases`;
    case 'chart':
      return `on chart ${target.chart} in every namespace`;
    case 'namespace':
      return `in namespace ${target.namespace}`;
    case 'release':
      return `${target.namespace}/${target.name} (chart ${target.chart})`;
  }
}

function describeRule(rule: PermissionRule): string {
  const parts = [
    rule.namespaces ? `namespaces ${rule.namespaces.join(', ')}` : 'every namespace',
    ...(rule.releases ? [`releases ${rule.releases.join(', ')}`] : []),
    ...(rule.charts ? [`charts ${rule.charts.join(', ')}`] : []),
    ...(rule.clusters ? [describeClusters(rule.clusters)] : []),
  ];
  return parts.join(', ');
}

function names(teams: TeamPolicy[]): string {
  return teams.map((t) => t.name).join(', ');
}
