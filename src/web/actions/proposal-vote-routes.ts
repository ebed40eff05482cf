import type { FastifyInstance, FastifyReply } from 'fastify';
import Mustache from 'mustache';
import { showCountedVote, type ProposalMessagePoster } from '../../session/flow/proposal-vote-messages.js';
import { castProposalVote, type ProposalVoteFlowDeps, type VoteOutcome } from '../../session/flow/proposal-votes.js';
import type { PageRoutes, WebRequestContext } from '../contract.js';
import { renderLayout } from '../render/layout.js';
import { releaseUrl } from '../urls.js';

/**
 * Approve / Reject a proposal on the web: the same vote as Slack's buttons (the session's
 * castProposalVote: Team `approve`, two different people, never the proposer, spec.approval.teams,
 * audited on the HelmRelease), "via web", with the Teams read on this request. The forms go in the
 * pages' proposal-actions slot; a vote not counted answers 403 with castVote's reason. A counted
 * vote edits the proposal's Slack messages and is told in their thread as a button's is
 * (showCountedVote), when Slack is there to edit them.
 */

/** The forms for PagesDeps.proposalActions: rendered with the proposal's view (its `voteUrl`) and the CSRF token. */
export const PROPOSAL_VOTE_FORMS = `<form class="inline" method="post" action="{{voteUrl}}"><input type="hidden" name="_csrf" value="{{csrfToken}}"><input type="hidden" name="choice" value="approve"><button class="primary" type="submit">Approve</button></form>
<form class="inline" method="post" action="{{voteUrl}}"><input type="hidden" name="_csrf" value="{{csrfToken}}"><input type="hidden" name="choice" value="reject"><button type="submit">Reject</button></form>`;

export type WebProposalVoteDeps = Omit<ProposalVoteFlowDeps, 'teams'> & {
  /** The release page's cluster segment of a proposal's cluster (`-` without a fleet). */
  clusterSegment(cluster: string): string | undefined;
  /** Slack, through the bot's token (SLACK_BOT_TOKEN): the proposal's messages are edited to the vote. */
  slack?: ProposalMessagePoster;
};

const BODY = `<h1>{{heading}}</h1>
<p class="{{kind}}">{{message}}</p>
{{#back}}<p><a href="{{back}}">Back to the release</a></p>{{/back}}
<p><a href="/proposals">Open proposals</a></p>`;

const STATUS: Record<VoteOutcome['kind'], number> = { counted: 200, refused: 403, 'not-found': 404 };
const HEADING: Record<VoteOutcome['kind'], string> = { counted: 'Vote counted', refused: 'Vote not counted', 'not-found': 'No such proposal' };

export function proposalVoteRoutes(deps: WebProposalVoteDeps): PageRoutes {
  const page = (reply: FastifyReply, web: WebRequestContext, outcome: VoteOutcome) => {
    const release = outcome.kind === 'not-found' ? undefined : outcome.proposal.release;
    const back = release ? releaseUrl('', deps.clusterSegment(release.cluster), release.namespace, release.name) : undefined;
    const body = Mustache.render(BODY, {
      heading: HEADING[outcome.kind],
      kind: outcome.kind === 'counted' ? 'answer' : 'stopped',
      message: outcome.message,
      back,
    });
    const html = renderLayout({ title: HEADING[outcome.kind], body, signedIn: { name: web.principal.name, via: web.principal.via }, csrfToken: web.csrfToken });
    return reply.code(STATUS[outcome.kind]).type('text/html; charset=utf-8').send(html);
  };

  return (app: FastifyInstance) => {
    app.post<{ Params: { cluster: string; id: string }; Body: { choice?: string } | undefined }>('/proposals/:cluster/:id/vote', async (request, reply) => {
      const web = request.web;
      if (!web) return reply.code(401).type('text/plain').send('sign in first');
      const choice = request.body?.choice;
      if (choice !== 'approve' && choice !== 'reject') {
        const body = Mustache.render('<h1>Bad vote</h1><p class="input">choice must be approve or reject, not "{{choice}}"; nothing changed.</p>', {
          choice: String(choice ?? ''),
        });
        return reply
          .code(400)
          .type('text/html; charset=utf-8')
          .send(renderLayout({ title: 'Bad vote', body, signedIn: { name: web.principal.name, via: web.principal.via }, csrfToken: web.csrfToken }));
      }
      const outcome = await castProposalVote(
        { cluster: request.params.cluster, id: request.params.id },
        choice,
        {
          id: web.principal.id,
          subject: web.principal.subject,
          via: 'web',
          // A Slack user's handle beside their id; an email id names itself.
          nameOf: async (person) => (person === web.principal.id && web.principal.via === 'slack' ? web.principal.name : undefined),
        },
        { ...deps, teams: async () => web.teams },
      );
      // Not awaited: the person's answer does not wait on Slack (its client retries a failing call for minutes).
      if (outcome.kind === 'counted' && deps.slack)
        void showCountedVote(outcome.proposal, outcome.line, { ...deps, poster: deps.slack }).catch((error: Error) =>
          deps.log.warn({ proposal: outcome.proposal.id, error: error.message }, 'proposal messages not edited'),
        );
      return page(reply, web, outcome);
    });
  };
}
