import { ReleaseEvent } from '../../../api/vocabulary.js';
import type { ReleaseNotification } from '../../contract.js';
import { attributionLine, imagesText } from '../attribution.js';

/** The Secret data key a PagerDuty channel reads when its secretRef names none. */
export const DEFAULT_ROUTING_KEY = 'routing-key';

export type IncidentAction = 'trigger' | 'resolve';
export type PagerDutySeverity = 'critical' | 'error' | 'warning' | 'info';

/** Error-severity events that are not the release failing: an audit line, a lock helmcrew cleared itself. */
const NOT_AN_INCIDENT: ReadonlySet<ReleaseEvent> = new Set([ReleaseEvent.ActionRefused, ReleaseEvent.ReleaseUnlocked]);

/** The release is back where it was declared (or gone): an open incident is resolved. */
const RECOVERY: ReadonlySet<ReleaseEvent> = new Set([
  ReleaseEvent.InstallSucceeded,
  ReleaseEvent.UpgradeSucceeded,
  ReleaseEvent.TestSucceeded,
  ReleaseEvent.DriftCorrected,
  ReleaseEvent.UninstallSucceeded,
]);

/** Remediation failed or Helm's own record is broken: the release may be down with nothing left to try. */
const CRITICAL: ReadonlySet<ReleaseEvent> = new Set([ReleaseEvent.RollbackFailed, ReleaseEvent.UninstallFailed, ReleaseEvent.ReleaseRecordInvalid]);
/** The release still runs as it was; something around it needs a look. */
const WARNING: ReadonlySet<ReleaseEvent> = new Set([ReleaseEvent.DriftDetected, ReleaseEvent.DependencyNotReady]);

/**
 * What a notification does to the release's incident: a failure triggers (or adds to) it, a
 * recovery resolves it, anything else is not sent. Pure. A rollback that succeeded is not a
 * recovery: the release runs, but not what was declared.
 */
export function incidentAction(notification: Pick<ReleaseNotification, 'event' | 'severity'>): IncidentAction | undefined {
  if (notification.severity === 'error') return NOT_AN_INCIDENT.has(notification.event) ? undefined : 'trigger';
  return RECOVERY.has(notification.event) ? 'resolve' : undefined;
}

/** PagerDuty's severity for an event (ours has two levels; PagerDuty's four drive its urgency). Pure. */
export function pagerdutySeverity(notification: Pick<ReleaseNotification, 'event' | 'severity'>): PagerDutySeverity {
  if (notification.severity !== 'error') return 'info';
  if (CRITICAL.has(notification.event)) return 'critical';
  return WARNING.has(notification.event) ? 'warning' : 'error';
}

/**
 * One incident per release (per cluster when HELMCREW_CLUSTER_NAME is set): derived, not stored, so
 * a restarted or another notify replica resolves what this one triggered. At most 255 characters.
 */
export function dedupKeyOf(release: ReleaseNotification['release'], cluster?: string): string {
  return ['helmcrew', ...(cluster ? [cluster] : []), release.namespace, release.name].join('/').slice(0, 255);
}

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/**
 * The Events API v2 body for a notification, or undefined when it is not sent. The routing key
 * appears in `routing_key` only; the rest is the notification's own (already redacted) text.
 */
export function pagerdutyEvent(notification: ReleaseNotification, routingKey: string, cluster?: string): Record<string, unknown> | undefined {
  const action = incidentAction(notification);
  if (!action) return undefined;
  const dedupKey = dedupKeyOf(notification.release, cluster);
  if (action === 'resolve') return { routing_key: routingKey, event_action: 'resolve', dedup_key: dedupKey };
  const { release } = notification;
  const where = `${release.namespace}/${release.name}${cluster ? ` in ${cluster}` : ''}`;
  const by = attributionLine(notification, 'plain');
  const images = imagesText(notification, 20);
  return {
    routing_key: routingKey,
    event_action: 'trigger',
    dedup_key: dedupKey,
    client: 'helmcrew',
    payload: {
      summary: clip(`${where}: ${notification.message}${by ? ` (${by})` : ''}`, 1024),
      source: `${cluster ? `${cluster}/` : ''}${release.targetNamespace}/${release.releaseName}`,
      severity: pagerdutySeverity(notification),
      timestamp: notification.at,
      component: release.chart,
      group: release.namespace,
      class: notification.event,
      custom_details: {
        release: `${release.namespace}/${release.name}`,
        chart: release.chart,
        ...(cluster ? { cluster } : {}),
        ...(notification.fromVersion ? { fromVersion: notification.fromVersion } : {}),
        ...(notification.toVersion ? { toVersion: notification.toVersion } : {}),
        ...(notification.revision !== undefined ? { revision: notification.revision } : {}),
        cause: notification.cause,
        ...(by ? { started: by } : {}),
        ...(images ? { images } : {}),
        ...(notification.errorExcerpt ? { error: clip(notification.errorExcerpt, 4000) } : {}),
        notification: notification.id,
        operation: notification.operationId,
      },
    },
  };
}
