import type { FreezeApi } from '../../core/kube/freeze-api.js';
import type { HelmReleaseApi } from '../../core/kube/helmrelease-api.js';
import type { ReleaseStorage } from '../../core/helm-storage/release-storage.js';
import type { Logger } from '../../core/log.js';
import { pageLink, planDiffLink } from '../../core/links/release-url.js';
import type { Subject, TeamPolicy } from '../../session/authz/policy-types.js';
import type { ReleaseOperations } from '../../session/execute/operations.js';
import type { ChangePreviews } from '../../session/execute/preview-client.js';
import type { Actor } from '../../session/plan/actor.js';
import { releaseOfAction, type PreparedAction } from '../../session/plan/prepared.js';
import type { ClusterDeps, FleetRouting } from '../../session/flow/fleet-routing.js';
import { ReleaseSession } from '../../session/flow/release-session.js';
import { approvePlan, cancelPlan, confirmPlan, type Clicker, type ConfirmationDeps } from '../../session/flow/plan-confirmations.js';
import type { SessionPorts } from '../../session/flow/ports.js';
import { approvalRequestMessage, type ApprovalEnd } from '../../session/render/approval-request.js';
import { planMessage, textMessage } from './blocks.js';
import { channelProgress, type ChannelPoster } from './channel-progress.js';
import type { PlanStore, StoredPlan } from '../../session/execute/plan-store.js';
import type { ProposalVotes } from './proposal-votes.js';
import type { DmPreferences, RequesterDmDeps } from './requester-dm.js';
import { teamGate } from '../../session/flow/team-gate.js';
import { slackReply, slackWhoami, type RequestContext } from './slack-ports.js';

const clusterOfAction = (action: PreparedAction) => ('cluster' in action.command ? action.command.cluster : undefined);

export interface ReleaseBotDeps {
  ops: ReleaseOperations;
  api: HelmReleaseApi;
  freezes: FreezeApi;
  storage: ReleaseStorage;
  /** The controller's object diffs for `/release diff`. */
  previews?: ChangePreviews;
  teams(): Promise<TeamPolicy[]>;
  userGroups(user: string): Promise<string[]>;
  /** The person's display name, for reports outside Slack (users.info). */
  userName?(user: string): Promise<string | undefined>;
  plans: PlanStore;
  /** A fleet (session/fleet/fleet-router.ts); without it the bot drives its own cluster only. */
  fleet?: FleetRouting;
  poster: ChannelPoster;
  log: Logger;
  outcomeTimeoutMs: number;
  /** The one claim to report a freeze's end in its message (shared with the sweep for expired and deleted freezes). */
  freezeReports?: { claim(uid: string): Promise<boolean> };
  /** Direct messages to the requester when an action ends, and who turned them off (`/release notify`). */
  requesterDm?: RequesterDmDeps & { preferences: Pick<DmPreferences, 'set'> };
  /** The bot's own cluster's name without a fleet (HELMCREW_CLUSTER_NAME, else `default`), as its controller names its proposals. */
  ownCluster?: string;
  /** The bot's own cluster's proposals, for `/release proposals` (issue 35). */
  proposals?: ClusterDeps['proposals'];
  /** Approve / Reject on proposals (issue 35). */
  proposalVotes?: Pick<ProposalVotes, 'vote'>;
  /** HELMCREW_WEB_URL: answers and plans about one release link to its page. */
  webUrl?: string;
}

/**
 * `/release` in Slack: the session (session/release-session.ts) driven through Slack's ports —
 * Teams decide who may, a plan waits in the plan store for its Confirm button, the channel's audit
 * message tells the progress — and the buttons: Confirm (authorized again), Cancel, and Approve
 * when the two-person rule applies. Transport-free: Bolt listeners call these after ack.
 */
export class ReleaseBot {
  private readonly session: ReleaseSession;

  constructor(private readonly deps: ReleaseBotDeps) {
    this.session = new ReleaseSession(deps);
  }

  async handleText(text: string, ctx: RequestContext): Promise<void> {
    await this.session.run(text, this.ports(ctx));
  }

  /** Confirm: only the requester, only once, only before the plan expires, and authorized again now (session/flow/plan-confirmations.ts). */
  async confirm(planId: string, ctx: RequestContext): Promise<void> {
    const result = await confirmPlan(planId, await this.clicker(ctx.user), this.confirmations());
    switch (result.kind) {
      case 'expired':
        return this.expired(ctx, 'confirm');
      case 'not-requester':
        return ctx.reply(textMessage('only the person who asked can confirm this plan'));
      case 'refused':
        return void (await this.session.refuse(
          this.ports(ctx),
          result.plan.action.targets[0],
          result.plan.action.plan.title,
          result.reason,
          clusterOfAction(result.plan.action),
        ));
      case 'awaiting-approval': {
        const { plan, approvalId } = result;
        const posted = await this.deps.poster.post(
          plan.requester.channel,
          approvalRequestMessage({
            requester: ctx.user,
            plan: plan.action.plan,
            planId: approvalId,
            ...(plan.action.command.reason ? { reason: plan.action.command.reason } : {}),
          }),
        );
        this.deps.log.info(
          { actor: `slack:${ctx.user}`, action: plan.action.command.verb, plan: plan.action.plan.title, channel: plan.requester.channel, ts: posted.ts },
          'approval requested',
        );
        return ctx.reply(textMessage('Waiting for a second authorized person to approve in the channel.'));
      }
      case 'confirmed':
        await ctx.reply(textMessage(`Confirmed: ${result.plan.action.plan.title}`));
        return this.execute(result.plan, ctx, undefined);
    }
  }

  async cancel(planId: string, ctx: RequestContext): Promise<void> {
    const plan = await this.deps.plans.peek(planId);
    if (!(await cancelPlan(planId, { id: `slack:${ctx.user}` }, this.deps)))
      return ctx.reply(
        textMessage(plan ? 'only the person who asked can cancel this; nothing changed' : 'Nothing to cancel: it has expired or was already used.'),
      );
    if (plan) await this.updateRequest(plan, planId, { kind: 'cancelled', by: `slack:${ctx.user}` });
    return ctx.reply(textMessage('Cancelled; nothing changed.'));
  }

  /** Approve: a second, different person authorized for the same action in their own right (an assistant's proposal may take two). */
  async approve(planId: string, ctx: RequestContext): Promise<void> {
    const result = await approvePlan(planId, await this.clicker(ctx.user), this.confirmations());
    if (result.kind === 'expired') return this.expired(ctx, 'approve');
    const { action } = result.plan;
    if (result.kind === 'refused')
      return void (await this.session.refuse(this.ports(ctx), action.targets[0], `approve ${action.plan.title}`, result.reason, clusterOfAction(action)));
    if (result.kind === 'counted') {
      await this.updateRequest(result.plan, planId);
      return ctx.reply(textMessage(`Approval counted: ${action.plan.title}. It needs ${result.still} more, from other people.`));
    }
    await this.updateRequest(result.plan, planId, { kind: 'approved', by: result.approvers });
    await ctx.reply(textMessage(`Approved: ${action.plan.title}`));
    // A plan made on the web or by an assistant has no channel: its record goes where it was approved.
    const requester = result.plan.requester.channel ? result.plan.requester : { ...result.plan.requester, channel: ctx.channel };
    return this.execute({ ...result.plan, requester }, ctx, result.approvers.length > 1 ? result.approvers.join(', ') : ctx.user);
  }

  /** An assistant's proposal's messages in the Teams' channels, told of an approval counted (buttons kept) or of its end (buttons gone). */
  private async updateRequest(plan: StoredPlan, planId: string, end?: ApprovalEnd): Promise<void> {
    const message = approvalRequestMessage(
      {
        requester: plan.requester.slackUser,
        plan: plan.action.plan,
        planId,
        viaAssistant: plan.requester.via === 'assistant',
        ...(plan.approvals ? { approvals: plan.approvals } : {}),
        ...(plan.action.command.reason ? { reason: plan.action.command.reason } : {}),
        ...(this.deps.webUrl ? { link: `${this.deps.webUrl.replace(/\/$/, '')}/plans/${planId}` } : {}),
      },
      end,
    );
    for (const where of plan.approvalMessages ?? [])
      await this.deps.poster
        .update(where.channel, where.ts, message)
        .catch((error: Error) =>
          this.deps.log.warn({ plan: planId, channel: where.channel, error: error.message }, 'an approval request could not be updated'),
        );
  }

  private confirmations(): ConfirmationDeps {
    return { plans: this.deps.plans, teams: () => this.deps.teams(), subjectOf: (requester) => this.subject(requester.slackUser) };
  }

  private async clicker(user: string): Promise<Clicker> {
    return { id: `slack:${user}`, subject: await this.subject(user) };
  }

  /** A proposal's Approve or Reject button (proposal-votes.ts). */
  async voteOnProposal(value: string, choice: 'approve' | 'reject', ctx: RequestContext): Promise<void> {
    if (!this.deps.proposalVotes) return ctx.reply(textMessage('proposals are not set up in this bot; nothing changed'));
    return this.deps.proposalVotes.vote(value, choice, ctx);
  }

  /** The requester's action, written as them and told in their channel, whoever clicked last. */
  private async execute(plan: StoredPlan, ctx: RequestContext, approver: string | undefined): Promise<void> {
    await this.session.execute(plan.action, this.ports(ctx, plan.requester), approver);
  }

  /** One request's ports; `requester` is whose action it is (the clicker, unless a stored plan says otherwise). */
  private ports(ctx: RequestContext, requester: StoredPlan['requester'] = { slackUser: ctx.user, channel: ctx.channel }): SessionPorts {
    // One look-up of the person's user groups per request.
    let subject: Promise<Subject> | undefined;
    const asker = () => (subject ??= this.subject(ctx.user));
    let actor: Promise<Actor> | undefined;
    return {
      actor: () => (actor ??= this.actorOf(requester)),
      reply: slackReply(ctx, this.deps.webUrl),
      gate: teamGate(asker, () => this.deps.teams()),
      confirm: {
        ask: async (action, requireApproval) => {
          const planId = await this.deps.plans.put({ action, requester });
          const about = releaseOfAction(action);
          // A diff longer than chat shows is on the web, paged (the plan is kept in the store the web reads).
          const diffLink = action.plan.more?.length && action.plan.diff ? planDiffLink(this.deps.webUrl, planId) : undefined;
          await ctx.reply(planMessage(action.plan, planId, requireApproval, about && pageLink(this.deps.webUrl, about), diffLink));
          return 'later';
        },
      },
      progress: (action, approver, api) => channelProgress({ ...this.deps, api }, requester, action, approver),
      whoami: async () => slackWhoami(ctx, await asker(), await this.deps.teams()),
      notifyMe: async (setting) => {
        if (!this.deps.requesterDm) return ctx.reply(textMessage('direct messages are not set up for this bot'));
        await this.deps.requesterDm.preferences.set(ctx.user, setting);
        this.deps.log.info({ actor: `slack:${ctx.user}`, setting }, 'direct messages on outcomes set');
        return ctx.reply(
          textMessage(
            setting === 'on'
              ? 'You will get a direct message when an action you start ends.'
              : 'No more direct messages when your actions end; the channel still shows them. `/release notify on` turns them back on.',
          ),
        );
      },
      secondPerson: true,
      awaitOutcome: true,
    };
  }

  /** The Slack user id is the signed request's; the name is Slack's answer about that id. A plan made on the web or by an assistant keeps saying so. */
  private async actorOf(requester: StoredPlan['requester']): Promise<Actor> {
    const name = await this.deps.userName?.(requester.slackUser);
    const channel = requester.via ? undefined : requester.channel;
    return { id: `slack:${requester.slackUser}`, ...(channel ? { channel } : {}), ...(name ? { name } : {}), ...(requester.via ? { via: requester.via } : {}) };
  }

  private async expired(ctx: RequestContext, what: string): Promise<void> {
    this.deps.log.warn({ actor: `slack:${ctx.user}`, channel: ctx.channel, what }, 'a button for an expired or used plan was clicked; refused');
    return ctx.reply(textMessage('This plan has expired or was already used, so nothing changed. Run the command again for a fresh plan.'));
  }

  private async subject(user: string): Promise<Subject> {
    return { slackUser: user, slackUserGroups: await this.deps.userGroups(user) };
  }
}
