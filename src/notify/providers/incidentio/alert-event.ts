import type { ReleaseNotification } from '../../contract.js';
import { attributionLine, imagesText } from '../attribution.js';
import { dedupKeyOf, incidentAction, pagerdutySeverity } from '../pagerduty/event.js';

/** The Secret data key an incident.io channel reads its alert source's bearer token from when its secretRef names none. */
export const DEFAULT_TOKEN_KEY = 'token';

/** The body of incident.io's Alert Events API (`POST /v2/alert_events/http/{alert_source_config_id}`). */
export interface IncidentIoAlertEvent {
  status: 'firing' | 'resolved';
  title: string;
  deduplication_key: string;
  description?: string;
  source_url?: string;
  metadata?: Record<string, unknown>;
}

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/**
 * The alert event for a notification, or undefined when it is neither a failure nor a recovery
 * (the same choice as PagerDuty's). One alert per release: `deduplication_key` is the release's own
 * (`helmcrew/[cluster/]namespace/name`), derived rather than stored, so a failure fires it (later
 * failures update it), the recovery resolves it, whichever notify replica sends. Pure.
 */
export function incidentIoEvent(notification: ReleaseNotification, options: { cluster?: string; statusUrl?: string } = {}): IncidentIoAlertEvent | undefined {
  const action = incidentAction(notification);
  if (!action) return undefined;
  const { release } = notification;
  const { cluster } = options;
  const where = `${release.namespace}/${release.name}${cluster ? ` in ${cluster}` : ''}`;
  const deduplication_key = dedupKeyOf(release, cluster);
  const source_url = options.statusUrl;
  if (action === 'resolve') {
    // incident.io takes the title on every event; the resolve says what resolved it.
    return { status: 'resolved', title: clip(`${where}: ${notification.message}`, 500), deduplication_key, ...(source_url ? { source_url } : {}) };
  }
  const by = attributionLine(notification, 'plain');
  const images = imagesText(notification, 20);
  const lines = [notification.message, ...(notification.errorExcerpt ? ['', '```', clip(notification.errorExcerpt, 4000), '```'] : [])];
  return {
    status: 'firing',
    title: clip(`${where}: ${notification.message}${by ? ` (${by})` : ''}`, 500),
    deduplication_key,
    description: lines.join('\n'),
    ...(source_url ? { source_url } : {}),
    metadata: {
      source: 'helmcrew',
      event: notification.event,
      severity: pagerdutySeverity(notification),
      ...(cluster ? { cluster } : {}),
      namespace: release.namespace,
      helmrelease: release.name,
      release: `${release.targetNamespace}/${release.releaseName}`,
      chart: release.chart,
      ...(notification.fromVersion ? { fromVersion: notification.fromVersion } : {}),
      ...(notification.toVersion ? { toVersion: notification.toVersion } : {}),
      ...(notification.revision !== undefined ? { revision: notification.revision } : {}),
      cause: notification.cause,
      ...(by ? { started: by } : {}),
      ...(images ? { images } : {}),
      notification: notification.id,
    },
  };
}
