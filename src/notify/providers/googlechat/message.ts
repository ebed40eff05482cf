import type { ReleaseNotification } from '../../contract.js';
import { attributionLine, imagesText } from '../attribution.js';
import { dedupKeyOf } from '../pagerduty/event.js';
import { phaseOf, summaryLine, titleOf } from '../slack/render.js';

/** The Secret data key a Google Chat channel reads its incoming webhook URL from when its secretRef names none. */
export const DEFAULT_URL_KEY = 'url';

/** Reply in the thread named by `thread.threadKey`; start it when there is none yet (Google Chat's default ignores the key and starts a new thread each time). */
export const REPLY_OPTION = 'REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD';

const LIMIT = { field: 300, message: 1000, excerpt: 1500 } as const;
const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);
/** Card text takes a few HTML tags: what came from outside is escaped. */
const html = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** One thread per release (per cluster with HELMCREW_CLUSTER_NAME): derived, so every notify replica posts into the same one. Pure. */
export function threadKeyOf(release: ReleaseNotification['release'], cluster?: string): string {
  return dedupKeyOf(release, cluster);
}

/** The webhook URL with the reply option that makes `threadKey` count, the rest (its key and token) untouched. Pure; undefined for a URL that is not http(s). */
export function threadedWebhookUrl(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return undefined;
  parsed.searchParams.set('messageReplyOption', REPLY_OPTION);
  return parsed.toString();
}

/**
 * The message an incoming webhook takes: one card (cardsV2) with what Slack's operation message
 * shows — title, release and namespace, chart and versions, Helm release, revision, cluster, cause,
 * who started it, the images, the message and helm's error — and, when a status URL is configured,
 * a button to the release's status; `fallbackText` for notifications; `thread.threadKey` so a
 * release's messages stay in one thread. Pure.
 */
export function googleChatMessage(n: ReleaseNotification, options: { statusUrl?: string; cluster?: string } = {}): Record<string, unknown> {
  const { cluster, statusUrl } = options;
  const by = attributionLine(n, 'plain');
  const images = imagesText(n);
  const versions = n.fromVersion && n.toVersion && n.fromVersion !== n.toVersion ? `${n.fromVersion} → ${n.toVersion}` : (n.toVersion ?? n.fromVersion);
  const fact = (topLabel: string, text: string) => ({ decoratedText: { topLabel, text: html(clip(text, LIMIT.field)), wrapText: true } });
  const widgets: Record<string, unknown>[] = [
    fact('Chart', `${n.release.chart}${versions ? ` ${versions}` : ''}`),
    fact('Helm release', `${n.release.targetNamespace}/${n.release.releaseName}`),
    ...(n.revision !== undefined ? [fact('Revision', String(n.revision))] : []),
    ...(cluster ? [fact('Cluster', cluster)] : []),
    fact('Cause', n.cause || 'unknown'),
    ...(by ? [fact('Started', by)] : []),
    ...(images ? [fact('Images', images)] : []),
  ];
  if (n.message.trim()) widgets.push({ textParagraph: { text: html(clip(n.message, LIMIT.message)) } });
  const sections: Record<string, unknown>[] = [{ widgets }];
  if (n.errorExcerpt?.trim()) {
    sections.push({
      header: "helm's error",
      collapsible: true,
      widgets: [{ textParagraph: { text: `<font color="#80868b">${html(clip(n.errorExcerpt, LIMIT.excerpt))}</font>` } }],
    });
  }
  if (statusUrl) {
    const title = phaseOf(n) === 'failed' ? 'Status and history' : 'Status';
    sections.push({ widgets: [{ buttonList: { buttons: [{ text: title, onClick: { openLink: { url: statusUrl } } }] } }] });
  }
  return {
    fallbackText: clip(summaryLine(n), 500),
    cardsV2: [
      {
        cardId: `helmcrew-${n.id}`,
        card: {
          header: { title: clip(`${titleOf(n.event)} · ${n.release.name} in ${n.release.namespace}`, 200) },
          sections,
        },
      },
    ],
    thread: { threadKey: threadKeyOf(n.release, cluster) },
  };
}
