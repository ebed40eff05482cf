/**
 * Block Kit for release notifications, as pure functions: the operation's message (updated in
 * place as the operation moves) and the thread reply with one event's details. Every text from
 * the release or helm is escaped and cut to Slack's limits, so a message is never refused.
 */
import { ReleaseEvent, StateReason } from '../../../api/vocabulary.js';
import type { ReleaseNotification } from '../../contract.js';
import { ReleaseAction, releaseActionValue } from '../../../core/slack/action-ids.js';
import { codeBlock, inlineCode, plainText, safeText, truncateEscaped } from '../../../core/slack/mrkdwn.js';
import type { TimelineEntry } from './operation-state.js';
import { approvalLine, attributionLine, imagesText } from '../attribution.js';
import { pageLink } from '../../../core/links/release-url.js';

export type Phase = 'in-progress' | 'succeeded' | 'failed' | 'info';

/** Attachment colour bar per phase (Slack's own palette). */
export const PHASE_COLOR: Record<Phase, string> = {
  'in-progress': '#1D9BD1',
  succeeded: '#2EB67D',
  failed: '#E01E5A',
  info: '#868686',
};

const PHASE_EMOJI: Record<Phase, string> = {
  'in-progress': ':hourglass_flowing_sand:',
  succeeded: ':white_check_mark:',
  failed: ':x:',
  info: ':information_source:',
};

/**
 * Titles by event name. Keyed by string, not by the ReleaseEvent type, so the events the notify
 * branch adds (InstallStarted, UpgradeStarted) read well before and after the merge; a unit
 * test checks that every ReleaseEvent has a title.
 */
export const EVENT_TITLE: Readonly<Record<string, string>> = {
  InstallStarted: 'Installing',
  UpgradeStarted: 'Upgrading',
  InstallSucceeded: 'Installed',
  InstallFailed: 'Install failed',
  UpgradeSucceeded: 'Upgraded',
  UpgradeFailed: 'Upgrade failed',
  TestSucceeded: 'Tests passed',
  TestFailed: 'Tests failed',
  RollbackSucceeded: 'Rolled back',
  RollbackFailed: 'Rollback failed',
  UninstallSucceeded: 'Uninstalled',
  UninstallFailed: 'Uninstall failed',
  DriftDetected: 'Drift detected',
  DriftCorrected: 'Drift corrected',
  DependencyNotReady: 'Waiting for a dependency',
  ChartPullFailed: 'Chart pull failed',
  ValuesInvalid: 'Values invalid',
  Stalled: 'Stalled',
  Suspended: 'Suspended',
  Resumed: 'Resumed',
  Frozen: 'Held by a freeze',
  ReleaseUnlocked: 'Stuck release unlocked',
  ReleaseOwnedByOther: 'Release owned by someone else',
  ReleaseAdopted: 'Release taken over',
  TargetNamespaceRefused: 'Target namespace refused',
  AccessDenied: 'Access denied',
  IdentityForbidden: 'Refused to the release’s identity',
  KubeConfigInvalid: 'Target kubeconfig invalid',
  KubeConfigRefused: 'Target kubeconfig refused',
  TargetUnreachable: 'Target cluster unreachable',
  ReconcileError: 'Reconcile error',
  ReleaseRecordInvalid: 'Release record unreadable',
  RepositoryNotAllowed: 'Repository not allowed',
  VerificationFailed: 'Signature check failed',
  InvalidCELExpression: 'CEL expression invalid',
  ProposalOpened: 'change proposed',
  ProposalSuperseded: 'proposal superseded',
  ProposalExpired: 'proposal expired',
  ProposalApplied: 'approved change applied',
  ActionRequested: 'Action requested from chat',
  ActionRefused: 'Action refused',
};

/** How an operation starts: its message is in progress until the outcome arrives. */
const IN_PROGRESS_TITLE: Record<string, string> = {
  InstallStarted: 'Installing',
  UpgradeStarted: 'Upgrading',
  [StateReason.Installing]: 'Installing',
  [StateReason.Upgrading]: 'Upgrading',
  [StateReason.Uninstalling]: 'Uninstalling',
  [StateReason.Progressing]: 'In progress',
};

const SUCCEEDED: ReadonlySet<string> = new Set([
  ReleaseEvent.InstallSucceeded,
  ReleaseEvent.UpgradeSucceeded,
  ReleaseEvent.TestSucceeded,
  ReleaseEvent.RollbackSucceeded,
  ReleaseEvent.UninstallSucceeded,
  ReleaseEvent.DriftCorrected,
  ReleaseEvent.Resumed,
]);

export function phaseOf(n: Pick<ReleaseNotification, 'event' | 'severity'>): Phase {
  if (n.severity === 'error') return 'failed';
  if (SUCCEEDED.has(n.event)) return 'succeeded';
  if (n.event in IN_PROGRESS_TITLE) return 'in-progress';
  return 'info';
}

export function titleOf(event: string): string {
  return EVENT_TITLE[event] ?? IN_PROGRESS_TITLE[event] ?? event;
}

export type Block = Record<string, unknown>;

export interface RenderedMessage {
  /** Notification and fallback text. */
  text: string;
  /** Blocks shown inside the colour bar. */
  blocks: Block[];
  color: string;
}

/** Slack's limits, with room to spare. */
const LIMIT = { summary: 1000, excerpt: 1500, field: 300, context: 2900, threadText: 2900 } as const;

const mrkdwn = (text: string) => ({ type: 'mrkdwn', text, verbatim: true });
const plain = (text: string, max: number) => ({ type: 'plain_text', text: plainText(text, max), emoji: true });

function versions(n: ReleaseNotification): string | undefined {
  if (n.fromVersion && n.toVersion && n.fromVersion !== n.toVersion) return `${n.fromVersion} → ${n.toVersion}`;
  return n.toVersion ?? n.fromVersion;
}

/** One line for notifications and screen readers: "web/unicorn: Upgrade failed (2.0.0 → 3.0.0)". */
export function summaryLine(n: ReleaseNotification, title = titleOf(n.event)): string {
  const v = versions(n);
  return `${n.release.namespace}/${n.release.name}: ${title}${v ? ` (${v})` : ''}`;
}

function timelineText(timeline: readonly TimelineEntry[]): string {
  const parts = timeline.map((e) => `${safeText(titleOf(e.event), 60)}${e.count > 1 ? ` ×${e.count}` : ''} ${safeText(e.at.slice(11, 19), 8)}`);
  return truncateEscaped(parts.join(' → '), LIMIT.context);
}

function actionsBlock(n: ReleaseNotification): Block {
  const value = releaseActionValue(n.release);
  const target = `${n.release.namespace}/${n.release.name}`;
  return {
    type: 'actions',
    block_id: 'release_actions',
    elements: [
      {
        type: 'button',
        action_id: ReleaseAction.Rollback,
        text: plain('Roll back', 75),
        style: 'danger',
        value,
        confirm: {
          title: plain(`Roll back ${n.release.name}?`, 100),
          text: {
            type: 'mrkdwn',
            text: safeText(`Suspends ${target} and rolls it back to its previous revision. It stays there until someone resumes it.`, 300),
          },
          confirm: plain('Roll back', 30),
          deny: plain('Cancel', 30),
          style: 'danger',
        },
      },
      { type: 'button', action_id: ReleaseAction.Suspend, text: plain('Suspend', 75), value },
      { type: 'button', action_id: ReleaseAction.History, text: plain('History', 75), value },
      { type: 'button', action_id: ReleaseAction.Status, text: plain('Status', 75), value },
    ],
  };
}

/** A drift report carries one button: correct it now (after the bot's plan, confirmation and authorization). */
function correctBlock(n: ReleaseNotification): Block {
  const value = releaseActionValue(n.release);
  return {
    type: 'actions',
    block_id: 'release_actions',
    elements: [
      { type: 'button', action_id: ReleaseAction.Correct, text: plain('Correct now', 75), style: 'primary', value },
      { type: 'button', action_id: ReleaseAction.History, text: plain('History', 75), value },
    ],
  };
}

/** ` · <url|page>`: the release's web page, when HELMCREW_WEB_URL is set; '' otherwise. */
function pageSuffix(n: ReleaseNotification, webUrl: string | undefined): string {
  const link = pageLink(webUrl, { ...(n.cluster ? { cluster: n.cluster } : {}), namespace: n.release.namespace, name: n.release.name });
  return link ? ` · ${link}` : '';
}

/**
 * The operation's message after `n`, given the timeline so far (including `n`). Failures carry
 * the Roll back / Suspend / History buttons; with `webUrl`, the heading links to the release's page.
 */
export function renderOperationMessage(n: ReleaseNotification, timeline: readonly TimelineEntry[], webUrl?: string): RenderedMessage {
  const phase = phaseOf(n);
  const v = versions(n);
  // A Resumed message continued by the upgrade back to the spec says both: "Resumed · Upgraded".
  const resumed = timeline[0]?.event === ReleaseEvent.Resumed && n.event !== ReleaseEvent.Resumed;
  const title = `${resumed ? 'Resumed · ' : ''}${titleOf(n.event)}`;
  const heading = `${PHASE_EMOJI[phase]} *${safeText(title, 80)}* · *${safeText(n.release.name, 253)}* in ${inlineCode(n.release.namespace, 70)}${pageSuffix(n, webUrl)}`;
  const by = attributionLine(n, 'slack', (text) => safeText(text, 120));
  const images = imagesText(n);
  // The changes an upgrade brings from approved proposals (issue 35), and who approved them.
  const approval = n.event.startsWith('Proposal') ? undefined : approvalLine(n, 'slack', (text) => safeText(text, 120));
  const fields = [
    `*Chart*\n${inlineCode(n.release.chart, LIMIT.field - 8)}${v ? ` ${safeText(v, 120)}` : ''}`,
    `*Helm release*\n${inlineCode(`${n.release.targetNamespace}/${n.release.releaseName}`, LIMIT.field - 15)}`,
    ...(n.revision !== undefined ? [`*Revision*\n${n.revision}`] : []),
    ...(n.release.targetCluster ? [`*Target cluster*\n${inlineCode(n.release.targetCluster, 100)}`] : []),
    ...(n.cluster ? [`*Cluster*\n${inlineCode(n.cluster, 100)}`] : []),
    `*Cause*\n${safeText(n.cause || 'unknown', LIMIT.field - 10)}`,
    ...(by ? [`*Started*\n${by}`] : []),
    ...(images ? [`*Images*\n${safeText(images, LIMIT.field - 10)}`] : []),
    ...(approval ? [`*Approved change*\n${truncateEscaped(approval, LIMIT.field - 20)}`] : []),
  ];
  const blocks: Block[] = [
    { type: 'section', block_id: 'release_heading', text: mrkdwn(heading) },
    { type: 'section', block_id: 'release_fields', fields: fields.map(mrkdwn) },
  ];
  if (n.message.trim()) blocks.push({ type: 'section', block_id: 'release_message', text: mrkdwn(safeText(n.message, LIMIT.summary)) });
  if (n.errorExcerpt?.trim()) blocks.push({ type: 'section', block_id: 'release_error', text: mrkdwn(codeBlock(n.errorExcerpt, LIMIT.excerpt)) });
  const history = timelineText(timeline);
  if (history) blocks.push({ type: 'context', block_id: 'release_timeline', elements: [mrkdwn(history)] });
  if (n.event === ReleaseEvent.DriftDetected) blocks.push(correctBlock(n));
  else if (phase === 'failed') blocks.push(actionsBlock(n));
  return { text: safeText(summaryLine(n, title), 500), blocks, color: PHASE_COLOR[phase] };
}

/**
 * The thread reply for one notification: its full message and helm's error excerpt. One also sent
 * to the channel (`alsoInChannel`) is read there without its parent, so it names the release.
 */
export function renderThreadReply(n: ReleaseNotification, alsoInChannel = false, webUrl?: string): { text: string; blocks: Block[] } {
  const when = n.at.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC');
  const title = `*${safeText(titleOf(n.event), 80)}*`;
  const where = `*${safeText(n.release.name, 253)}* in ${inlineCode(n.release.namespace, 70)}${n.cluster ? ` on ${inlineCode(n.cluster, 100)}` : ''}`;
  const heading = alsoInChannel ? `${PHASE_EMOJI[phaseOf(n)]} ${title} · ${where}` : title;
  const blocks: Block[] = [
    { type: 'context', elements: [mrkdwn(`${heading} · ${safeText(when, 40)} · ${safeText(n.cause || 'unknown cause', 300)}${pageSuffix(n, webUrl)}`)] },
  ];
  if (n.message.trim()) blocks.push({ type: 'section', text: mrkdwn(safeText(n.message, LIMIT.threadText)) });
  if (n.errorExcerpt?.trim()) blocks.push({ type: 'section', text: mrkdwn(codeBlock(n.errorExcerpt, LIMIT.threadText)) });
  return { text: safeText(`${alsoInChannel ? summaryLine(n) : titleOf(n.event)}: ${n.message}`, 500), blocks };
}
