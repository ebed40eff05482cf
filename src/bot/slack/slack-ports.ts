import { authorizeAction } from '../../session/authz/authorize-action.js';
import { authorize, teamsOf } from '../../session/authz/authorize.js';
import type { AuthzTarget, Subject, TeamPolicy } from '../../session/authz/policy-types.js';
import { namespaceAuthzTarget, releaseAuthzTarget } from '../../session/authz/targets.js';
import type { QueryCommand } from '../../session/execute/queries.js';
import { findRelease, type ReleaseLookup } from '../../session/execute/find-release.js';
import type { Gate, Reply } from '../../session/flow/ports.js';
import { codeMessage, planMessage, textMessage, whichClusterMessage, type SlackMessage } from './blocks.js';

/** Where a request came from and how to answer the person privately (response_url or ephemeral). */
export interface RequestContext {
  user: string;
  channel: string;
  reply(message: SlackMessage): Promise<void>;
}

/** The person's answers, privately, as Slack messages. */
export function slackReply(ctx: RequestContext): Reply {
  return {
    say: (text) => ctx.reply(textMessage(text)),
    answer: (verb, output) => ctx.reply(codeMessage(`/release ${verb}`, output)),
    plan: (plan) => ctx.reply(planMessage(plan, undefined, false)),
    chooseCluster: (question, text, clusters) => ctx.reply(whichClusterMessage(question, text, clusters)),
  };
}

/** Who may, from the Teams: a query on its release or namespace (freezes: any Team member), an action on each target. */
export function teamGate(subject: () => Promise<Subject>, teams: () => Promise<TeamPolicy[]>): Gate {
  return {
    async query(command: QueryCommand, api: ReleaseLookup) {
      if (command.verb === 'help') return undefined;
      // Freezes say why changes wait: any Team member may see them.
      if (command.verb === 'freezes') return teamsOf(await subject(), await teams()).length === 0 ? 'you may not list freezes: you are in no Team' : undefined;
      // Open proposals are posted in Team channels: any Team member may list them.
      if (command.verb === 'proposals')
        return teamsOf(await subject(), await teams()).length === 0 ? 'you may not list proposals: you are in no Team' : undefined;
      let target: AuthzTarget;
      const cluster = 'cluster' in command ? command.cluster : undefined;
      if (command.verb === 'list') target = namespaceAuthzTarget(command.namespace, cluster);
      else {
        const resolved = await findRelease(api, command.release);
        if (!resolved.ok) return resolved.message;
        target = releaseAuthzTarget(resolved.release, cluster);
      }
      const decision = authorize(await subject(), command.verb, target, await teams());
      return decision.allowed ? undefined : decision.reason;
    },
    action: async (action) => authorizeAction(await subject(), action, await teams()),
    // A promotion changes the target as an upgrade would: proposing one takes `upgrade` there (the votes then take `approve`).
    async propose(target) {
      const decision = authorize(await subject(), 'upgrade', target, await teams());
      return decision.allowed ? undefined : decision.reason;
    },
  };
}

/** `whoami` in Slack: the user, their user groups and Teams. */
export async function slackWhoami(ctx: RequestContext, subject: Subject, teams: TeamPolicy[]): Promise<void> {
  const mine = teamsOf(subject, teams);
  const lines = [
    `you are <@${ctx.user}> (${ctx.user})`,
    `user groups: ${subject.slackUserGroups.join(', ') || 'none'}`,
    `teams: ${mine.map((t) => t.name).join(', ') || 'none — you may do nothing here yet'}`,
  ];
  return ctx.reply({ text: lines.join('\n') });
}
