/**
 * Where a release's Slack thread is, read from the side of the web. notify's Slack provider keeps
 * each operation's message in a ConfigMap of the release's namespace (one data key per operation
 * and channel, a JSON entry with `release`, `channelId`, `ts`, `updatedAt`); the release page links
 * the most recently updated one. Pure parsing here; the read and the permalink are ports.
 */
import type { KubeClients } from '../kube/kube-clients.js';
import { isNotFound } from '../kube/errors.js';

/** The ConfigMap notify's Slack provider writes in each HelmRelease namespace. */
export const SLACK_MESSAGES_CONFIGMAP = 'helmcrew-slack-messages';

export interface SlackMessageRef {
  channelId: string;
  ts: string;
}

/** The message of the release's most recently updated operation in the map's entries, if any. */
export function latestMessageOf(data: Readonly<Record<string, string>>, release: { namespace: string; name: string }): SlackMessageRef | undefined {
  const key = `${release.namespace}/${release.name}`;
  let best: (SlackMessageRef & { at: number }) | undefined;
  for (const raw of Object.values(data)) {
    const entry = parseEntry(raw);
    if (!entry || entry.release !== key) continue;
    const at = Date.parse(entry.updatedAt ?? '') || 0;
    if (!best || at > best.at) best = { channelId: entry.channelId, ts: entry.ts, at };
  }
  return best && { channelId: best.channelId, ts: best.ts };
}

function parseEntry(raw: string): { release: string; channelId: string; ts: string; updatedAt?: string } | undefined {
  try {
    const value = JSON.parse(raw) as Record<string, unknown>;
    const { release, channelId, ts, updatedAt } = value;
    if (typeof release !== 'string' || typeof channelId !== 'string' || typeof ts !== 'string' || !/^\d+\.\d+$/.test(ts)) return undefined;
    return { release, channelId, ts, ...(typeof updatedAt === 'string' ? { updatedAt } : {}) };
  } catch {
    return undefined;
  }
}

/** Slack's address of a message when the workspace's URL is known (`https://acme.slack.com/`): `…/archives/<channel>/p<ts without the dot>`. */
export function slackPermalink(workspaceUrl: string, ref: SlackMessageRef): string {
  return `${workspaceUrl.replace(/\/+$/, '')}/archives/${encodeURIComponent(ref.channelId)}/p${ref.ts.replace('.', '')}`;
}

/** How many message addresses are kept. */
const KNOWN_LINKS = 1000;

/** A release's Slack thread: where its latest message is, and that message's address. */
export type SlackThreadOf = (namespace: string, name: string) => Promise<string | undefined>;

/**
 * Reads the map and asks Slack for the message's address (`chat.getPermalink`, as the bot does); a
 * map not there, a release without a message or Slack refusing: no link, never an error page.
 */
export function slackThreadReader(
  kube: Pick<KubeClients, 'core'>,
  permalink: (ref: SlackMessageRef) => Promise<string | undefined>,
  onError: (error: unknown) => void = () => undefined,
): SlackThreadOf {
  // A message's address never changes: one Slack call per message, not per page view.
  const known = new Map<string, string>();
  return async (namespace, name) => {
    try {
      const map = await kube.core.readNamespacedConfigMap({ name: SLACK_MESSAGES_CONFIGMAP, namespace });
      const ref = latestMessageOf(map.data ?? {}, { namespace, name });
      if (!ref) return undefined;
      const key = `${ref.channelId}/${ref.ts}`;
      const link = known.get(key) ?? (await permalink(ref));
      if (link && !known.has(key)) {
        if (known.size >= KNOWN_LINKS) known.delete(known.keys().next().value!);
        known.set(key, link);
      }
      return link;
    } catch (error) {
      if (!isNotFound(error)) onError(error);
      return undefined;
    }
  };
}
