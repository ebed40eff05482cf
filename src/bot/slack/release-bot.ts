import { FREEZE_REPORTED_ANNOTATION } from '../../api/annotations.js';
import type { HelmRelease } from '../../api/helmrelease.js';
import type { FreezeApi } from '../../core/kube/freeze-api.js';
import type { HelmReleaseApi } from '../../core/kube/helmrelease-api.js';
import type { ReleaseStorage } from '../../core/helm-storage/release-storage.js';
import type { Logger } from '../../core/log.js';
import { authorizeAction, authorizeActionApproval, isRequester } from '../authz/authorize-action.js';
import { authorize, teamsOf } from '../authz/authorize.js';
import type { AuthzTarget, Subject, TeamPolicy } from '../authz/policy-types.js';
import { namespaceAuthzTarget, releaseAuthzTarget } from '../authz/targets.js';
import { awaitOutcomes } from '../execute/await-outcome.js';
import type { ReleaseOperations } from '../execute/operations.js';
import { isQuery, runQuery, type QueryCommand } from '../execute/queries.js';
import type { ChangePreviews } from '../execute/preview-client.js';
import { isMutating, type MutatingCommand } from '../grammar/command.js';
import { parseReleaseCommand } from '../grammar/parse.js';
import type { Actor } from '../plan/actor.js';
import type { PreparedAction } from '../plan/prepared.js';
import { messageRefOf, withMessageRef } from '../plan/freeze.js';
import { resolveRelease } from '../plan/resolve.js';
import { approvalRequestMessage, auditMessage, codeMessage, freezeLiftedMessage, planMessage, textMessage, type SlackMessage } from './blocks.js';
import type { PlanStore, StoredPlan } from './plan-store.js';

/** Where a request came from and how to answer the person privately (response_url or ephemeral). */
export interface RequestContext {
  user: string;
  channel: string;
  reply(message: SlackMessage): Promise<void>;
}

/** In-channel messages: the audit record everyone sees. */
export interface ChannelPoster {
  post(channel: string, message: SlackMessage): Promise<{ ts: string }>;
  update(channel: string, ts: string, message: SlackMessage): Promise<void>;
}

export interface ReleaseBotDeps {
  ops: ReleaseOperations;
  api: HelmReleaseApi;
  freezes: FreezeApi;
  storage: ReleaseStorage;
  /** The controller's object diffs for `/release diff`. */
  previews?: ChangePreviews;
  teams(): Promise<TeamPolicy[]>;
  userGroups(user: string): Promise<string[]>;
  plans: PlanStore;
  poster: ChannelPoster;
  log: Logger;
  outcomeTimeoutMs: number;
  /** The one claim to report a freeze's end in its message (shared with the sweep for expired and deleted freezes). */
  freezeReports?: { claim(uid: string): Promise<boolean> };
}

/**
 * The `/release` flow for Slack: parse → authorize → plan → (Confirm) → authorize again →
 * (Approve, if the two-person rule applies) → write intent → report the controller's outcome.
 * Transport-free: Bolt listeners (slash command, @-mention, buttons) call these methods after ack.
 */
export class ReleaseBot {
  constructor(private readonly deps: ReleaseBotDeps) {}

  async handleText(text: string, ctx: RequestContext): Promise<void> {
    const parsed = parseReleaseCommand(text);
    if (!parsed.ok) return ctx.reply(textMessage(parsed.error.message));
    const command = parsed.command;
    const subject = await this.subject(ctx.user);
    if (command.verb === 'whoami') {
      const teams = teamsOf(subject, await this.deps.teams());
      const lines = [
        `you are <@${ctx.user}> (${ctx.user})`,
        `user groups: ${subject.slackUserGroups.join(', ') || 'none'}`,
        `teams: ${teams.map((t) => t.name).join(', ') || 'none — you may do nothing here yet'}`,
      ];
      return ctx.reply({ text: lines.join('\n') });
    }
    if (isQuery(command)) return this.query(command, subject, ctx);
    if (isMutating(command)) return this.plan(command, subject, ctx);
  }

  private async query(command: QueryCommand, subject: Subject, ctx: RequestContext): Promise<void> {
    if (command.verb === 'freezes') {
      // Freezes say why changes wait: any Team member may see them.
      if (teamsOf(subject, await this.deps.teams()).length === 0) return ctx.reply(textMessage('you may not list freezes: you are in no Team'));
    } else if (command.verb !== 'help') {
      let target: AuthzTarget;
      if (command.verb === 'list') target = namespaceAuthzTarget(command.namespace);
      else {
        const resolved = resolveRelease(command.release, (await this.deps.api.list(command.release.namespace)).items);
        if (!resolved.ok) return ctx.reply(textMessage(resolved.message));
        target = releaseAuthzTarget(resolved.release);
      }
      const decision = authorize(subject, command.verb, target, await this.deps.teams());
      if (!decision.allowed) return ctx.reply(textMessage(decision.reason));
    }
    const output = await runQuery(command, this.deps);
    return ctx.reply(codeMessage(`/release ${command.verb}`, output));
  }

  private async plan(command: MutatingCommand, subject: Subject, ctx: RequestContext): Promise<void> {
    const prepared = await this.deps.ops.prepare(command, { id: `slack:${ctx.user}`, channel: ctx.channel });
    if (!prepared.ok) return ctx.reply(textMessage(prepared.message));
    const decision = authorizeAction(subject, prepared.action, await this.deps.teams());
    if (!decision.allowed) return this.refuse(ctx, prepared.action.targets[0], prepared.action.plan.title, decision.reason);
    const action = await this.deps.ops.withPreview(prepared.action);
    if (!action.plan.doable) return ctx.reply(planMessage(action.plan, undefined, false));
    const planId = await this.deps.plans.put({ action, requester: { slackUser: ctx.user, channel: ctx.channel } });
    return ctx.reply(planMessage(action.plan, planId, decision.requireApproval));
  }

  /** Confirm: only the requester, only once, only before the plan expires, and authorized again now. */
  async confirm(planId: string, ctx: RequestContext): Promise<void> {
    const peeked = await this.deps.plans.peek(planId);
    if (!peeked || peeked.awaitingApproval) return this.expired(ctx, 'confirm');
    if (!isRequester(peeked.requester, ctx.user)) return ctx.reply(textMessage('only the person who asked can confirm this plan'));
    const plan = await this.deps.plans.take(planId);
    if (!plan) return this.expired(ctx, 'confirm');
    const subject = await this.subject(ctx.user);
    const decision = authorizeAction(subject, plan.action, await this.deps.teams());
    if (!decision.allowed) return this.refuse(ctx, plan.action.targets[0], plan.action.plan.title, decision.reason);
    if (decision.requireApproval) {
      const approvalId = await this.deps.plans.put({ ...plan, awaitingApproval: true });
      const posted = await this.deps.poster.post(
        plan.requester.channel,
        approvalRequestMessage(ctx.user, plan.action.plan, approvalId, plan.action.command.reason),
      );
      this.deps.log.info(
        { actor: `slack:${ctx.user}`, action: plan.action.command.verb, plan: plan.action.plan.title, channel: plan.requester.channel, ts: posted.ts },
        'approval requested',
      );
      return ctx.reply(textMessage('Waiting for a second authorized person to approve in the channel.'));
    }
    await ctx.reply(textMessage(`Confirmed: ${plan.action.plan.title}`));
    return this.execute(plan, undefined);
  }

  async cancel(planId: string, ctx: RequestContext): Promise<void> {
    const plan = await this.deps.plans.peek(planId);
    if (plan && isRequester(plan.requester, ctx.user) && !plan.awaitingApproval) await this.deps.plans.take(planId);
    return ctx.reply(textMessage('Cancelled; nothing changed.'));
  }

  /** Approve: a second, different person authorized for the same action in their own right. */
  async approve(planId: string, ctx: RequestContext): Promise<void> {
    const peeked = await this.deps.plans.peek(planId);
    if (!peeked || !peeked.awaitingApproval) return this.expired(ctx, 'approve');
    const requester = await this.subject(peeked.requester.slackUser);
    const approver = await this.subject(ctx.user);
    const decision = authorizeActionApproval(requester, approver, peeked.action, await this.deps.teams());
    if (!decision.allowed) return this.refuse(ctx, peeked.action.targets[0], `approve ${peeked.action.plan.title}`, decision.reason);
    const plan = await this.deps.plans.take(planId);
    if (!plan) return this.expired(ctx, 'approve');
    await ctx.reply(textMessage(`Approved: ${plan.action.plan.title}`));
    return this.execute(plan, ctx.user);
  }

  private async execute(plan: StoredPlan, approver: string | undefined): Promise<void> {
    const { action, requester } = plan;
    const actor: Actor = { id: `slack:${requester.slackUser}`, channel: requester.channel };
    const reason = action.command.reason;
    const message = await this.deps.poster.post(
      requester.channel,
      auditMessage(requester.slackUser, action.plan.title, reason, ':hourglass: asked the controller…', approver),
    );
    // Claimed before the Freeze is deleted, so the sweep that reports deleted freezes leaves this one to us.
    const freezeMessage = await this.freezeMessageToUpdate(action);
    let applied;
    try {
      // A freeze carries where its message is, so lifting it from chat can tell that message what happened.
      const toApply = action.freeze ? { ...action, freeze: withMessageRef(action.freeze, requester.channel, message.ts) } : action;
      applied = await this.deps.ops.apply(toApply, actor, approver);
    } catch (error) {
      // The channel must not be left believing it is in progress.
      await this.deps.poster.update(
        requester.channel,
        message.ts,
        auditMessage(requester.slackUser, action.plan.title, reason, ':x: could not write the change to the cluster; see the bot log', approver),
      );
      throw error;
    }
    await this.deps.poster.update(
      requester.channel,
      message.ts,
      auditMessage(requester.slackUser, action.plan.title, reason, `:hourglass: ${applied.summary}`, approver),
    );
    const outcomes = await awaitOutcomes(this.deps.api, action, applied.requestId, this.deps.outcomeTimeoutMs);
    const ok = outcomes.every((o) => o.done && o.succeeded);
    const state = `${ok ? ':white_check_mark:' : ':x:'} ${outcomes.map((o) => o.message).join('\n') || applied.summary}`;
    await this.deps.poster.update(
      requester.channel,
      message.ts,
      auditMessage(requester.slackUser, action.plan.title, reason, state, approver, await this.nextSteps(action)),
    );
    if (action.unfreeze && freezeMessage) {
      const { name } = action.unfreeze.metadata;
      const lifted = freezeLiftedMessage(
        { name, reason: action.unfreeze.spec.reason, setBy: action.unfreeze.spec.setBy },
        { liftedBy: requester.slackUser },
        outcomes,
      );
      // The freeze's message may be gone or in a channel the bot left: the lift itself is done and recorded.
      await this.deps.poster
        .update(freezeMessage.channel, freezeMessage.ts, lifted)
        .catch((error: Error) => this.deps.log.warn({ freeze: name, error: error.message }, "could not update the freeze's channel message"));
    }
  }

  /** The lifted freeze's channel message, unless its end was reported already (it expired, and the sweep told it). */
  private async freezeMessageToUpdate(action: PreparedAction): Promise<{ channel: string; ts: string } | undefined> {
    const ref = messageRefOf(action.unfreeze);
    const uid = action.unfreeze?.metadata.uid;
    if (!ref || action.unfreeze?.metadata.annotations?.[FREEZE_REPORTED_ANNOTATION]) return undefined;
    if (uid && this.deps.freezeReports && !(await this.deps.freezeReports.claim(uid))) return undefined;
    return ref;
  }

  /** One release acted on: its buttons for what comes next (a freeze's releases get none). */
  private async nextSteps(action: PreparedAction): Promise<{ release: string; suspended: boolean } | undefined> {
    if (action.command.verb === 'freeze' || action.command.verb === 'unfreeze' || action.targets.length !== 1) return undefined;
    const { namespace, name } = action.targets[0]!;
    const release = await this.deps.api.get(namespace, name);
    return release ? { release: `${namespace}/${name}`, suspended: !!release.spec.suspend } : undefined;
  }

  private async refuse(ctx: RequestContext, target: { namespace: string; name: string } | undefined, what: string, reason: string): Promise<void> {
    const release: HelmRelease | undefined = target ? await this.deps.api.get(target.namespace, target.name) : undefined;
    await this.deps.ops.recordRefusal(release, { id: `slack:${ctx.user}`, channel: ctx.channel }, what, reason);
    return ctx.reply(textMessage(`Refused: ${reason}. Nothing changed.`));
  }

  private async expired(ctx: RequestContext, what: string): Promise<void> {
    this.deps.log.warn({ actor: `slack:${ctx.user}`, channel: ctx.channel, what }, 'a button for an expired or used plan was clicked; refused');
    return ctx.reply(textMessage('This plan has expired or was already used, so nothing changed. Run the command again for a fresh plan.'));
  }

  private async subject(user: string): Promise<Subject> {
    return { slackUser: user, slackUserGroups: await this.deps.userGroups(user) };
  }
}
