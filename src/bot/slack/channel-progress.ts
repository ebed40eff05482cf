import { FREEZE_REPORTED_ANNOTATION } from '../../api/annotations.js';
import type { HelmReleaseApi } from '../../core/kube/helmrelease-api.js';
import type { Logger } from '../../core/log.js';
import { messageRefOf, withMessageRef } from '../../session/plan/freeze.js';
import type { PreparedAction } from '../../session/plan/prepared.js';
import type { Progress } from '../../session/flow/ports.js';
import { auditMessage, freezeLiftedMessage, type SlackMessage } from './blocks.js';
import { tellRequester, type RequesterDmDeps } from './requester-dm.js';

/** In-channel messages: the audit record everyone sees. */
export interface ChannelPoster {
  post(channel: string, message: SlackMessage): Promise<{ ts: string }>;
  update(channel: string, ts: string, message: SlackMessage): Promise<void>;
  /** A reply in the thread of the message at `ts` (a proposal's votes); absent: posted in the channel. */
  reply?(channel: string, ts: string, message: SlackMessage): Promise<void>;
}

export interface ChannelProgressDeps {
  /** The acted-on release's cluster (a fleet's: through its agent). */
  api: Pick<HelmReleaseApi, 'get'>;
  poster: ChannelPoster;
  log: Logger;
  /** The one claim to report a freeze's end in its message (shared with the sweep for expired and deleted freezes). */
  freezeReports?: { claim(uid: string): Promise<boolean> };
  /** Tells the requester directly how a release action ended (requester-dm.ts); none without it. */
  requesterDm?: RequesterDmDeps;
}

/**
 * A confirmed action's progress in Slack: one audit message in the requester's channel, posted
 * before the write and updated with what was written and what the controller then reported; a
 * lifted freeze's own message hears how it ended.
 */
export function channelProgress(
  deps: ChannelProgressDeps,
  requester: { slackUser: string; channel: string },
  action: PreparedAction,
  approver: string | undefined,
): Progress {
  const { channel, slackUser } = requester;
  const audit = (state: string, next?: { release: string; suspended: boolean }) =>
    auditMessage(slackUser, action.plan.title, action.command.reason, state, approver, next);
  let ts = '';
  let freezeMessage: { channel: string; ts: string } | undefined;
  return {
    async started(toApply) {
      ts = (await deps.poster.post(channel, audit(':hourglass: asked the controller…'))).ts;
      // Claimed before the Freeze is deleted, so the sweep that reports deleted freezes leaves this one to us.
      freezeMessage = await freezeMessageToUpdate(deps, toApply);
      // A freeze carries where its message is, so lifting it from chat can tell that message what happened.
      return toApply.freeze ? { ...toApply, freeze: withMessageRef(toApply.freeze, channel, ts) } : toApply;
    },
    // The channel must not be left believing it is in progress.
    failed: () => deps.poster.update(channel, ts, audit(':x: could not write the change to the cluster; see the bot log')),
    applied: (summary) => deps.poster.update(channel, ts, audit(`:hourglass: ${summary}`)),
    async finished(outcomes, summary) {
      const ok = outcomes.every((o) => o.done && o.succeeded);
      const state = `${ok ? ':white_check_mark:' : ':x:'} ${outcomes.map((o) => o.message).join('\n') || summary}`;
      await deps.poster.update(channel, ts, audit(state, await nextSteps(deps.api, action)));
      // A freeze is everyone's news, told in its channel; a release action is also its requester's.
      if (deps.requesterDm && !action.freeze && !action.unfreeze)
        await tellRequester(deps.requesterDm, slackUser, { channel, ts }, action.plan.title, outcomes);
      if (!action.unfreeze || !freezeMessage) return;
      const { name } = action.unfreeze.metadata;
      const lifted = freezeLiftedMessage({ name, reason: action.unfreeze.spec.reason, setBy: action.unfreeze.spec.setBy }, { liftedBy: slackUser }, outcomes);
      // The freeze's message may be gone or in a channel the bot left: the lift itself is done and recorded.
      await deps.poster
        .update(freezeMessage.channel, freezeMessage.ts, lifted)
        .catch((error: Error) => deps.log.warn({ freeze: name, error: error.message }, "could not update the freeze's channel message"));
    },
  };
}

/** The lifted freeze's channel message, unless its end was reported already (it expired, and the sweep told it). */
async function freezeMessageToUpdate(deps: ChannelProgressDeps, action: PreparedAction): Promise<{ channel: string; ts: string } | undefined> {
  const ref = messageRefOf(action.unfreeze);
  const uid = action.unfreeze?.metadata.uid;
  if (!ref || action.unfreeze?.metadata.annotations?.[FREEZE_REPORTED_ANNOTATION]) return undefined;
  if (uid && deps.freezeReports && !(await deps.freezeReports.claim(uid))) return undefined;
  return ref;
}

/** One release acted on: its buttons for what comes next (a freeze's releases get none). */
async function nextSteps(api: Pick<HelmReleaseApi, 'get'>, action: PreparedAction): Promise<{ release: string; suspended: boolean } | undefined> {
  if (action.command.verb === 'freeze' || action.command.verb === 'unfreeze' || action.targets.length !== 1) return undefined;
  const { namespace, name } = action.targets[0]!;
  const release = await api.get(namespace, name).catch(() => undefined);
  // A fleet cluster's release: the buttons carry the short form, so Status and Resume go to the same cluster.
  const cluster = 'cluster' in action.command ? action.command.cluster : undefined;
  return release ? { release: `${cluster ? `${cluster}/` : ''}${namespace}/${name}`, suspended: !!release.spec.suspend } : undefined;
}
