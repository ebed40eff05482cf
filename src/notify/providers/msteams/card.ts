import type { ReleaseNotification } from '../../contract.js';
import { attributionLine, imagesText } from '../attribution.js';
import { phaseOf, summaryLine, titleOf } from '../slack/render.js';

/** The Secret data key a Teams channel reads its Workflows webhook URL from when its secretRef names none. */
export const DEFAULT_URL_KEY = 'url';

/** The Adaptive Card schema version the cards declare (and are tested against). */
export const CARD_VERSION = '1.4';
export const CARD_SCHEMA = 'http://adaptivecards.io/schemas/adaptive-card.json';

const LIMIT = { field: 300, message: 1000, excerpt: 1500 } as const;
const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/** A release's status link from HELMCREW_STATUS_URL, `{namespace}` and `{name}` filled in (encoded). Pure. */
export function statusLink(template: string | undefined, release: ReleaseNotification['release']): string | undefined {
  if (!template) return undefined;
  return template.replaceAll('{namespace}', encodeURIComponent(release.namespace)).replaceAll('{name}', encodeURIComponent(release.name));
}

/**
 * Whether a notification gets a card: a Workflows webhook cannot edit a posted card, so an
 * operation is one card, posted with its outcome; its start (`…Started`) is not posted. Pure.
 */
export function postsCard(n: Pick<ReleaseNotification, 'event' | 'severity'>): boolean {
  return phaseOf(n) !== 'in-progress';
}

/**
 * The message a Workflows webhook takes: one Adaptive Card with what Slack's operation message
 * shows (title, release, chart and versions, Helm release, revision, cause, message, helm's error)
 * and, when a status URL is configured, a link to the release's status in place of Slack's buttons.
 */
export function teamsMessage(n: ReleaseNotification, statusUrlTemplate?: string, cluster?: string): Record<string, unknown> {
  const phase = phaseOf(n);
  const by = attributionLine(n, 'plain');
  const images = imagesText(n);
  const versions = n.fromVersion && n.toVersion && n.fromVersion !== n.toVersion ? `${n.fromVersion} → ${n.toVersion}` : (n.toVersion ?? n.fromVersion);
  const facts = [
    { title: 'Chart', value: clip(`${n.release.chart}${versions ? ` ${versions}` : ''}`, LIMIT.field) },
    { title: 'Helm release', value: clip(`${n.release.targetNamespace}/${n.release.releaseName}`, LIMIT.field) },
    ...(n.revision !== undefined ? [{ title: 'Revision', value: String(n.revision) }] : []),
    ...(cluster ? [{ title: 'Cluster', value: clip(cluster, LIMIT.field) }] : []),
    { title: 'Cause', value: clip(n.cause || 'unknown', LIMIT.field) },
    ...(by ? [{ title: 'Started', value: clip(by, LIMIT.field) }] : []),
    ...(images ? [{ title: 'Images', value: clip(images, LIMIT.field) }] : []),
  ];
  const body: Record<string, unknown>[] = [
    {
      type: 'TextBlock',
      text: clip(`${titleOf(n.event)} · ${n.release.name} in ${n.release.namespace}`, 400),
      weight: 'Bolder',
      size: 'Medium',
      wrap: true,
      color: phase === 'failed' ? 'Attention' : phase === 'succeeded' ? 'Good' : 'Default',
    },
    { type: 'FactSet', facts },
  ];
  if (n.message.trim()) body.push({ type: 'TextBlock', text: clip(n.message, LIMIT.message), wrap: true });
  if (n.errorExcerpt?.trim()) body.push({ type: 'TextBlock', text: clip(n.errorExcerpt, LIMIT.excerpt), wrap: true, fontType: 'Monospace', isSubtle: true });
  const link = statusLink(statusUrlTemplate, n.release);
  const card = {
    $schema: CARD_SCHEMA,
    type: 'AdaptiveCard',
    version: CARD_VERSION,
    fallbackText: clip(summaryLine(n), 500),
    body,
    ...(link ? { actions: [{ type: 'Action.OpenUrl', title: phase === 'failed' ? 'Status and history' : 'Status', url: link }] } : {}),
  };
  return { type: 'message', attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null, content: card }] };
}
