import type { ReleaseNotification } from '../../contract.js';
import { attributionLine } from '../attribution.js';
import { incidentAction, pagerdutySeverity } from '../pagerduty/event.js';

/** The Secret data key an Alertmanager channel's bearer token is read from when its secretRef names none. */
export const DEFAULT_TOKEN_KEY = 'token';

/** The alert's name: what an Alertmanager route or an inhibition matches on. */
export const ALERT_NAME = 'HelmReleaseFailed';

/**
 * How long a firing alert lasts unless a later failure sends it again or the recovery resolves
 * it: Alertmanager resolves an alert by itself at endsAt (its resolve_timeout, 5 min, when unset),
 * and helmcrew sends on events, not on every evaluation as Prometheus does.
 */
export const ALERT_LIFETIME_MS = 24 * 3600_000;

/** The severities a failure can have; a recovery resolves the alert of each (labels name the alert). */
const SEVERITIES = ['critical', 'error', 'warning'] as const;

export interface PostableAlert {
  labels: Record<string, string>;
  annotations?: Record<string, string>;
  startsAt: string;
  endsAt: string;
  generatorURL?: string;
}

/** Label values Alertmanager takes are any UTF-8 text; kept short. */
const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/**
 * The labels that name a release's alert: the same for its failure and its recovery, so
 * Alertmanager matches one to the other (its fingerprint is over the labels). Pure.
 */
export function alertLabels(release: ReleaseNotification['release'], severity: string, cluster?: string): Record<string, string> {
  return {
    alertname: ALERT_NAME,
    ...(cluster ? { cluster } : {}),
    namespace: release.namespace,
    helmrelease: release.name,
    release: release.releaseName,
    severity,
    source: 'helmcrew',
  };
}

/**
 * Alertmanager API v2 alerts for a notification (`POST /api/v2/alerts`), or undefined when it is
 * neither a failure nor a recovery (the same choice as PagerDuty's). A failure fires the release's
 * alert; a recovery resolves it, for each severity a failure could have had. Pure.
 */
export function alertsFor(notification: ReleaseNotification, options: { cluster?: string; statusUrl?: string; now: Date }): PostableAlert[] | undefined {
  const action = incidentAction(notification);
  if (!action) return undefined;
  const { release } = notification;
  if (action === 'resolve') {
    // endsAt in the past resolves; now, not the event's time, so a late delivery still ends it.
    const endsAt = options.now.toISOString();
    return SEVERITIES.map((severity) => ({ labels: alertLabels(release, severity, options.cluster), startsAt: endsAt, endsAt }));
  }
  const startsAt = new Date(notification.at);
  const by = attributionLine(notification, 'plain');
  const where = `${release.namespace}/${release.name}${options.cluster ? ` in ${options.cluster}` : ''}`;
  return [
    {
      labels: alertLabels(release, pagerdutySeverity(notification), options.cluster),
      annotations: {
        summary: clip(`${where}: ${notification.message}${by ? ` (${by})` : ''}`, 1024),
        event: notification.event,
        chart: release.chart,
        targetNamespace: release.targetNamespace,
        ...(notification.fromVersion ? { fromVersion: notification.fromVersion } : {}),
        ...(notification.toVersion ? { toVersion: notification.toVersion } : {}),
        ...(notification.revision !== undefined ? { revision: String(notification.revision) } : {}),
        ...(notification.errorExcerpt ? { description: clip(notification.errorExcerpt, 4000) } : {}),
        notification: notification.id,
      },
      startsAt: startsAt.toISOString(),
      endsAt: new Date(Math.max(startsAt.getTime(), options.now.getTime()) + ALERT_LIFETIME_MS).toISOString(),
      ...(options.statusUrl ? { generatorURL: options.statusUrl } : {}),
    },
  ];
}
