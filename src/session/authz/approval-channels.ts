import type { ActionScope } from '../plan/prepared.js';
import { ruleCovers } from './authorize.js';
import type { TeamPolicy } from './policy-types.js';
import { authzTargets, authzVerb } from './targets.js';

/**
 * Pure: where an assistant's proposal asks for approval — the Slack channels of the Teams whose
 * rules grant the action's verb on every target (their members are the people who may approve it),
 * each channel once, in the Teams' order.
 */
export function approvalChannels(action: ActionScope, teams: readonly TeamPolicy[]): string[] {
  const verb = authzVerb(action);
  const targets = authzTargets(action);
  const approving = teams.filter((team) =>
    targets.every((target) => team.permissions.some((rule) => rule.verbs.includes(verb) && ruleCovers(rule, target, team.name))),
  );
  return [...new Set(approving.flatMap((team) => team.slackChannels ?? []))];
}
