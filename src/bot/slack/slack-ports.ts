import { pageLink, type ReleaseRef } from '../../core/links/release-url.js';
import { teamsOf } from '../../session/authz/authorize.js';
import type { Subject, TeamPolicy } from '../../session/authz/policy-types.js';
import type { Reply } from '../../session/flow/ports.js';
import { codeMessage, planMessage, textMessage, whichClusterMessage, type SlackMessage } from './blocks.js';

/** Where a request came from and how to answer the person privately (response_url or ephemeral). */
export interface RequestContext {
  user: string;
  channel: string;
  reply(message: SlackMessage): Promise<void>;
}

/** The person's answers, privately, as Slack messages; with `webUrl` (HELMCREW_WEB_URL), one about a release links to its page. */
export function slackReply(ctx: RequestContext, webUrl?: string): Reply {
  const link = (about: ReleaseRef | undefined) => (about ? pageLink(webUrl, about) : undefined);
  return {
    say: (text) => ctx.reply(textMessage(text)),
    answer: (verb, output, about) => ctx.reply(codeMessage(`/release ${verb}`, output, link(about))),
    plan: (plan, about) => ctx.reply(planMessage(plan, undefined, false, link(about))),
    chooseCluster: (question, text, clusters) => ctx.reply(whichClusterMessage(question, text, clusters)),
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
