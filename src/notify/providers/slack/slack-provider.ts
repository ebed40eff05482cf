/**
 * The Slack provider: one message per release operation and channel, posted on the first
 * notification and edited in place (chat.update) as the operation moves; each new detail goes
 * in the message's thread. The message reference lives in the API server (see
 * message-store.ts), so a restarted notify, or one whose Redis was wiped, edits the same message.
 *
 * Retrying is the notify queue's job: every failure becomes a PermanentDeliveryError or a
 * RetryableDeliveryError (with Slack's Retry-After), and a redelivered notification changes
 * nothing twice.
 */
import type { KnownBlock, WebClient } from '@slack/web-api';
import type { ChannelRef, NotificationProvider, Pace, PacedCall, ReleaseNotification } from '../../contract.js';
import { RetryableDeliveryError, StepAsideError } from '../../contract.js';
import type { Logger } from '../../../core/log.js';
import { DEFAULT_OUTCOME_WAIT_MS, DEFAULT_UPDATE_BURST, DEFAULT_UPDATE_PER_MINUTE, type SlackConfig } from './config.js';
import { entryKey, type SlackMessageStore } from './message-store.js';
import { MessageStates } from './message-states.js';
import {
  detailFingerprint,
  extendTimeline,
  isOutcomeOrError,
  markDelivered,
  needsThreadReply,
  CHAT_UPDATE_BUCKET,
  wasDelivered,
  type OperationState,
} from './operation-state.js';
import { renderOperationMessage, renderThreadReply, type Block, type RenderedMessage } from './render.js';
import { asSlackBlocks, messageBody, notifyWebClient } from './web-client.js';
import { slackErrorCode, toDeliveryError } from './slack-errors.js';
import { isProposalNotification, proposalMessageFor, type ProposalRecords, type ProposalRecordsFor } from './proposal-view.js';
import { withMessage } from '../../../core/proposals/proposal.js';
import type { ProposalMessage } from '../../../core/slack/proposal-message.js';

export type SlackChannelRef = Extract<ChannelRef, { kind: 'slack' }>;

export interface SlackProviderOptions {
  config: SlackConfig;
  /** Where message references survive restarts: a ConfigMapMessageStore in production. */
  store: SlackMessageStore;
  log: Logger;
  now?: () => Date;
  /** The proposal store of a notification's cluster (issue 35): a proposal's events render it, with its buttons. */
  proposals?: ProposalRecordsFor;
}

/** The message was deleted or is not ours any more: start a new one rather than fail forever. */
const LOST_MESSAGE_CODES = new Set(['message_not_found', 'cant_update_message']);

export class SlackProvider implements NotificationProvider<SlackChannelRef> {
  readonly kind = 'slack' as const;
  private readonly web: WebClient;
  private readonly token: string;
  private readonly states: MessageStates;
  private readonly log: Logger;
  private readonly now: () => Date;
  /** One delivery at a time per operation and channel within this process. */
  private readonly chains = new Map<string, Promise<void>>();
  private readonly updateLimit: { perSecond: number; burst: number };
  private readonly outcomeWaitMs: number;
  private readonly proposals: ProposalRecordsFor | undefined;
  /** HELMCREW_WEB_URL: every message links to its release's page; unset, none does. */
  private readonly webUrl: string | undefined;

  constructor(options: SlackProviderOptions) {
    this.proposals = options.proposals;
    this.webUrl = options.config.webUrl;
    this.token = options.config.botToken;
    this.states = new MessageStates(options.store, options.log);
    this.log = options.log;
    this.now = options.now ?? (() => new Date());
    this.updateLimit = {
      perSecond: (options.config.updatePerMinute ?? DEFAULT_UPDATE_PER_MINUTE) / 60,
      burst: options.config.updateBurst ?? DEFAULT_UPDATE_BURST,
    };
    this.outcomeWaitMs = options.config.outcomeWaitMs ?? DEFAULT_OUTCOME_WAIT_MS;
    this.web = notifyWebClient(options.config, this.log);
  }

  /** A post and a thread reply are messages in the channel, an edit a call of the workspace's chat.update tier: each is paced on its own. */
  readonly pacesItself = true;

  deliver(n: ReleaseNotification, channel: SlackChannelRef, team: string, pace: Pace = async () => true): Promise<void> {
    const key = `${n.release.namespace}/${entryKey(n.operationId, channel.channel)}`;
    const previous = this.chains.get(key) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => this.deliverNow(n, channel.channel, team, key, pace));
    const tail = next.catch(() => undefined);
    this.chains.set(key, tail);
    void tail.then(() => {
      if (this.chains.get(key) === tail) this.chains.delete(key);
    });
    return next;
  }

  private async deliverNow(n: ReleaseNotification, channelRef: string, team: string, key: string, pace: Pace): Promise<void> {
    const started = Date.now();
    const context = {
      release: `${n.release.namespace}/${n.release.name}`,
      team,
      channel: channelRef,
      operation: n.operationId,
      notification: n.id,
      event: n.event,
    };
    let state = await this.states.stateFor(n, channelRef, key);
    if (wasDelivered(state, n.id)) {
      if (this.states.isUnsaved(key) && state) await this.states.persist(n.release.namespace, key, state);
      this.log.debug(context, 'slack: already delivered');
      return;
    }
    if (isProposalNotification(n)) {
      const records = this.proposals?.(n.cluster);
      const message = await this.readProposal(n, records);
      if (message && records) return this.deliverProposal(n, { channelRef, key, pace, context, started }, state, message, records);
    }
    // A retry after a failed thread reply must not count the event twice or edit again.
    const applied = state?.applied === n.id;
    const timeline = applied && state ? state.timeline : extendTimeline(state?.timeline ?? [], n);
    const rendered = renderOperationMessage(n, timeline, this.webUrl);
    if (!state) {
      await pace({ bucket: 'channel' });
      state = await this.postMessage(n, channelRef, messageBody(rendered), timeline);
      await this.states.persist(n.release.namespace, key, state);
      this.log.info({ ...context, ts: state.ts }, 'slack: posted release message');
    } else if (!applied) {
      const edit = { bucket: 'shared', key: CHAT_UPDATE_BUCKET, ...this.updateLimit } as const;
      let editSlot = false;
      let said = false;
      if (isOutcomeOrError(n) && needsThreadReply(state, n)) {
        editSlot = await pace({ ...edit, within: this.outcomeWaitMs });
        if (!editSlot) {
          // The workspace's edits are backed up (Slack's chat.update tier is one bucket for every
          // channel): the outcome goes to the channel now, as its thread reply also sent there.
          state = await this.replyInThread(n, state, key, pace, true);
          said = true;
          this.log.info({ ...context, ts: state.ts }, 'slack: outcome sent to the channel ahead of its edit');
        }
      }
      // Stepping aside for the edit after saying the outcome keeps that it was said.
      if (!editSlot) await (said ? this.paceKeeping(pace, edit, n.release.namespace, key, state) : pace(edit));
      state = await this.updateOperationMessage(n, state, rendered, timeline, context);
      this.states.remember(n.release.namespace, state);
    }
    if (needsThreadReply(state, n)) state = await this.replyInThread(n, state, key, pace, false);
    state = { ...state, delivered: markDelivered(state.delivered, n.id), updatedAt: this.now().toISOString(), version: state.version + 1 };
    await this.states.persist(n.release.namespace, key, state);
    this.log.info({ ...context, ts: state.ts, ms: Date.now() - started }, 'slack: delivered');
  }

  /** Posts the notification's detail in the operation's thread (and, `alsoInChannel`, in the channel). */
  private async replyInThread(n: ReleaseNotification, state: OperationState, key: string, pace: Pace, alsoInChannel: boolean): Promise<OperationState> {
    // Stepping aside for the reply's slot: whichever replica comes back sends the reply, what came before done.
    await this.paceKeeping(pace, { bucket: 'channel' }, n.release.namespace, key, state);
    const reply = renderThreadReply(n, alsoInChannel, this.webUrl);
    await this.call('chat.postMessage (thread reply)', () =>
      this.web.chat.postMessage({
        channel: state.channelId,
        thread_ts: state.ts,
        text: reply.text,
        blocks: asSlackBlocks(reply.blocks),
        reply_broadcast: alsoInChannel,
        unfurl_links: false,
        unfurl_media: false,
      }),
    );
    const next = { ...state, lastDetail: detailFingerprint(n), version: state.version + 1 };
    this.states.remember(n.release.namespace, next);
    return next;
  }

  /** Paces a call; a job stepping aside for its slot first saves the state so far, so the call after it is not repeated. */
  private async paceKeeping(pace: Pace, call: PacedCall, namespace: string, key: string, state: OperationState): Promise<void> {
    try {
      await pace(call);
    } catch (error) {
      if (error instanceof StepAsideError) await this.states.persist(namespace, key, state);
      throw error;
    }
  }

  private async readProposal(n: ReleaseNotification, records: ProposalRecords | undefined): Promise<ProposalMessage | undefined> {
    try {
      return await proposalMessageFor(n, records, this.now().getTime());
    } catch (error) {
      // Without the record the message would lose its buttons: wait for Redis rather than post a poorer one.
      throw new RetryableDeliveryError(`could not read proposal ${n.proposalId ?? ''}: ${String(error)}`);
    }
  }

  /**
   * A proposal's message (issue 35): posted once per channel with its buttons, edited by the later
   * events of the same proposal (its operation id is the proposal's), no thread replies; where it
   * is goes into the proposal, so the bot edits it as votes arrive.
   */
  private async deliverProposal(
    n: ReleaseNotification,
    where: { channelRef: string; key: string; pace: Pace; context: Record<string, unknown>; started: number },
    existing: OperationState | undefined,
    message: ProposalMessage,
    records: ProposalRecords,
  ): Promise<void> {
    const { channelRef, key, pace, context } = where;
    const body = { text: message.text, blocks: asSlackBlocks(message.blocks as Block[]) };
    const timeline = extendTimeline(existing?.timeline ?? [], n);
    let state: OperationState;
    if (!existing) {
      await pace({ bucket: 'channel' });
      state = await this.postMessage(n, channelRef, body, timeline);
      await this.states.persist(n.release.namespace, key, state);
      this.log.info({ ...context, ts: state.ts, proposal: n.proposalId }, 'slack: posted proposal message');
    } else if (existing.applied !== n.id) {
      await pace({ bucket: 'shared', key: CHAT_UPDATE_BUCKET, ...this.updateLimit });
      try {
        await this.web.chat.update({ channel: existing.channelId, ts: existing.ts, ...body });
        state = { ...existing, timeline, applied: n.id, version: existing.version + 1 };
      } catch (error) {
        const code = slackErrorCode(error);
        if (code === undefined || !LOST_MESSAGE_CODES.has(code)) throw toDeliveryError(error, 'chat.update', [this.token]);
        this.log.warn({ ...context, ts: existing.ts, code }, 'slack: the proposal message is gone; posting a new one');
        state = { ...(await this.postMessage(n, channelRef, body, timeline)), version: existing.version + 1 };
      }
      this.states.remember(n.release.namespace, state);
    } else state = existing;
    try {
      await records.update(n.proposalId!, (p) => {
        const next = withMessage(p, { channel: state.channelId, ts: state.ts });
        return next === p ? undefined : next;
      });
    } catch (error) {
      await this.states.persist(n.release.namespace, key, state);
      throw new RetryableDeliveryError(`could not note the message of proposal ${n.proposalId ?? ''}: ${String(error)}`);
    }
    state = { ...state, delivered: markDelivered(state.delivered, n.id), updatedAt: this.now().toISOString(), version: state.version + 1 };
    await this.states.persist(n.release.namespace, key, state);
    this.log.info({ ...context, ts: state.ts, ms: Date.now() - where.started }, 'slack: delivered');
  }

  /** Posts an operation's (or a proposal's) first message; its state starts at version 1. */
  private async postMessage(
    n: ReleaseNotification,
    channelRef: string,
    body: { text: string; blocks?: KnownBlock[]; attachments?: ReturnType<typeof messageBody>['attachments'] },
    timeline: OperationState['timeline'],
  ): Promise<OperationState> {
    const posted = await this.call('chat.postMessage', () =>
      this.web.chat.postMessage({ channel: channelRef, ...body, unfurl_links: false, unfurl_media: false }),
    );
    if (!posted.ts || !posted.channel) throw new RetryableDeliveryError('Slack accepted the message but answered no channel or ts');
    return {
      operationId: n.operationId,
      channelRef,
      channelId: posted.channel,
      ts: posted.ts,
      release: `${n.release.namespace}/${n.release.name}`,
      ...(n.cluster ? { cluster: n.cluster } : {}),
      timeline,
      delivered: [],
      applied: n.id,
      updatedAt: this.now().toISOString(),
      version: 1,
    };
  }

  private async updateOperationMessage(
    n: ReleaseNotification,
    state: OperationState,
    rendered: RenderedMessage,
    timeline: OperationState['timeline'],
    context: Record<string, unknown>,
  ): Promise<OperationState> {
    try {
      await this.web.chat.update({ channel: state.channelId, ts: state.ts, ...messageBody(rendered) });
      return { ...state, timeline, applied: n.id, version: state.version + 1 };
    } catch (error) {
      const code = slackErrorCode(error);
      if (code === undefined || !LOST_MESSAGE_CODES.has(code)) throw toDeliveryError(error, 'chat.update', [this.token]);
      this.log.warn({ ...context, ts: state.ts, code }, 'slack: the release message is gone; posting a new one');
      const fresh = await this.postMessage(n, state.channelRef, messageBody(rendered), timeline);
      return { ...fresh, version: state.version + 1 };
    }
  }

  private async call<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      throw toDeliveryError(error, what, [this.token]);
    }
  }
}
