import { randomBytes } from 'node:crypto';
import type { HelmRelease } from '../../api/helmrelease.js';
import { ReleaseEvent, severityOf } from '../../api/vocabulary.js';
import type { EventDetails } from '../../core/events/release-event-sink.js';
import type { ReleaseNotification } from '../contract.js';

/** Which operation an event belongs to when the reconcile did not say: its family. */
const DEFAULT_ACTION: Partial<Record<ReleaseEvent, string>> = {
  InstallStarted: 'install',
  InstallSucceeded: 'install',
  InstallFailed: 'install',
  UpgradeStarted: 'upgrade',
  UpgradeSucceeded: 'upgrade',
  UpgradeFailed: 'upgrade',
  TestSucceeded: 'test',
  TestFailed: 'test',
  RollbackSucceeded: 'rollback',
  RollbackFailed: 'rollback',
  UninstallSucceeded: 'uninstall',
  UninstallFailed: 'uninstall',
  DriftDetected: 'drift',
  DriftCorrected: 'drift',
  Suspended: 'suspend',
  Resumed: 'suspend',
  Frozen: 'freeze',
  ReleaseUnlocked: 'unlock',
};

/** The events about one proposal (details.proposalId names it): its message, not an operation's. */
export const PROPOSAL_EVENTS: ReadonlySet<string> = new Set([
  ReleaseEvent.ProposalOpened,
  ReleaseEvent.ProposalSuperseded,
  ReleaseEvent.ProposalExpired,
  ReleaseEvent.ProposalApplied,
]);

/**
 * The operation id: `uid:generation:action[:attempt]` (a proposal's events: `uid:proposal:<id>`). Events without an operation of their own
 * (ChartPullFailed, ValuesInvalid, DependencyNotReady, Stalled) share `prepare` for their
 * generation, so the retries of one spec land in one message.
 */
export function operationIdOf(release: HelmRelease, event: ReleaseEvent, details: EventDetails = {}): string {
  const uid = release.metadata.uid ?? `${release.metadata.namespace}/${release.metadata.name}`;
  // A proposal's events, whatever the generation, make one message: opened, then edited to superseded, expired or applied.
  if (details.proposalId && PROPOSAL_EVENTS.has(event)) return `${uid}:proposal:${details.proposalId}`;
  const action = details.action ?? DEFAULT_ACTION[event] ?? 'prepare';
  const parts = [uid, String(release.metadata.generation ?? 0), action];
  if (details.attempt) parts.push(details.attempt);
  return parts.join(':');
}

let sequence = 0;

/**
 * A notification id that sorts in publishing order within one process (time, then a counter)
 * and is unique across processes (random tail). No ':' (BullMQ job ids cannot hold one).
 */
export function newNotificationId(now: Date): string {
  sequence = (sequence + 1) % 36 ** 4;
  return `${now.getTime().toString(36).padStart(9, '0')}-${sequence.toString(36).padStart(4, '0')}-${randomBytes(4).toString('hex')}`;
}

/** The typed notification for one happening. Pure but for the id passed in. */
export function buildNotification(
  release: HelmRelease,
  event: ReleaseEvent,
  message: string,
  details: EventDetails,
  now: Date,
  id: string,
): ReleaseNotification {
  const { namespace, name, labels } = release.metadata;
  const releaseName = release.spec.releaseName ?? name;
  const notification: ReleaseNotification = {
    id,
    operationId: operationIdOf(release, event, details),
    event,
    severity: severityOf(event),
    release: {
      namespace,
      name,
      releaseName,
      targetNamespace: release.spec.targetNamespace ?? namespace,
      ...(release.spec.kubeConfig ? { targetCluster: release.spec.kubeConfig.secretRef.name } : {}),
      chart: release.spec.chart.name,
      labels: labels ?? {},
    },
    cause: details.cause ?? `generation ${release.metadata.generation ?? 0}`,
    message,
    at: now.toISOString(),
  };
  if (details.fromVersion !== undefined) notification.fromVersion = details.fromVersion;
  if (details.toVersion !== undefined) notification.toVersion = details.toVersion;
  if (details.revision !== undefined) notification.revision = details.revision;
  if (details.errorExcerpt !== undefined) notification.errorExcerpt = details.errorExcerpt;
  if (details.requester) notification.requester = details.requester;
  // The revision names a Git chart's move; a person's change of a Git chart is theirs.
  if (details.gitRevision && (details.gitMoved || !details.requester)) notification.gitRevision = details.gitRevision;
  if (details.images?.length) notification.images = details.images;
  if (details.moreImages) notification.moreImages = details.moreImages;
  if (details.proposalId) notification.proposalId = details.proposalId;
  if (details.proposedBy) notification.proposedBy = details.proposedBy;
  if (details.approvers?.length) notification.approvers = details.approvers;
  return notification;
}
