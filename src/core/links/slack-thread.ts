/**
 * Where a release's Slack thread is, read from the side of the web. notify's Slack provider keeps
 * each operation's message in a ConfigMap of the release's namespace (one data key per operation
 * and channel, a JSON entry with `release`, `channelId`, `ts`, `updatedAt`); a fleet notify keeps
 * every cluster's in one ConfigMap of its own namespace, each entry naming its `cluster`. The
 * release page links the most recently updated one. Pure parsing here; the read and the permalink are ports.
 */
import type { KubeClients } from '../kube/kube-clients.js';
import { isNotFound } from '../kube/errors.js';

/** The ConfigMap notify's Slack provider writes in each HelmRelease namespace. */
export const SLACK_MESSAGES_CONFIGMAP = 'helmcrew-slack-messages';
/** A fleet notify's one map, in its own namespace: every cluster's operations (ids hold the HelmRelease's uid, so they do not collide). */
export const FLEET_SLACK_MESSAGES_CONFIGMAP = 'helmcrew-slack-messages-fleet';

export interface SlackMessageRef {
  channelId: string;
  ts: string;
}

/**
 * The message of the release's most recently updated operation in the map's entries, if any. With
 * a `cluster` (a fleet map), only entries naming that cluster: a same-named release elsewhere, and
 * an entry written before entries named their cluster, are not this one's.
 */
export function latestMessageOf(
  data: Readonly<Record<string, string>>,
  release: { namespace: string; name: string },
  cluster?: string,
): SlackMessageRef | undefined {
  const key = `${release.namespace}/${release.name}`;
  let best: (SlackMessageRef & { at: number }) | undefined;
  for (const raw of Object.values(data)) {
    const entry = parseEntry(raw);
    if (!entry || entry.release !== key || (cluster !== undefined && entry.cluster !== cluster)) continue;
    const at = Date.parse(entry.updatedAt ?? '') || 0;
    if (!best || at > best.at) best = { channelId: entry.channelId, ts: entry.ts, at };
  }
  return best && { channelId: best.channelId, ts: best.ts };
}

function parseEntry(raw: string): { release: string; channelId: string; ts: string; updatedAt?: string; cluster?: string } | undefined {
  try {
    const value = JSON.parse(raw) as Record<string, unknown>;
    const { release, channelId, ts, updatedAt, cluster } = value;
    if (typeof release !== 'string' || typeof channelId !== 'string' || typeof ts !== 'string' || !/^\d+\.\d+$/.test(ts)) return undefined;
    return { release, channelId, ts, ...(typeof updatedAt === 'string' ? { updatedAt } : {}), ...(typeof cluster === 'string' ? { cluster } : {}) };
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

/** A release's Slack thread: where its latest message is, and that message's address; `cluster` names a fleet's member (absent: this cluster). */
export type SlackThreadOf = (namespace: string, name: string, cluster?: string) => Promise<string | undefined>;

/** A fleet's web: where the fleet notify keeps its one map (its namespace, HELMCREW_NAMESPACE) and the own cluster's name. */
export interface FleetSlackMessages {
  namespace: string;
  own: string;
}

/** Which map to read for a release, in order (pure): the own cluster's namespace map, then, in a fleet, the fleet map by cluster. */
export function messageMapsFor(
  namespace: string,
  cluster: string | undefined,
  fleet?: FleetSlackMessages,
): { name: string; namespace: string; cluster?: string }[] {
  const own = cluster === undefined || cluster === fleet?.own;
  const namespaceMap = own ? [{ name: SLACK_MESSAGES_CONFIGMAP, namespace }] : [];
  const fleetMap = fleet ? [{ name: FLEET_SLACK_MESSAGES_CONFIGMAP, namespace: fleet.namespace, cluster: cluster ?? fleet.own }] : [];
  return [...namespaceMap, ...fleetMap];
}

/**
 * Reads the maps and asks Slack for the message's address (`chat.getPermalink`, as the bot does); a
 * map not there, a release without a message or Slack refusing: no link, never an error page.
 * Another cluster's release is found in the fleet map only, by its cluster (`fleet` absent: none).
 */
export function slackThreadReader(
  kube: Pick<KubeClients, 'core'>,
  permalink: (ref: SlackMessageRef) => Promise<string | undefined>,
  onError: (error: unknown) => void = () => undefined,
  fleet?: FleetSlackMessages,
): SlackThreadOf {
  // A message's address never changes: one Slack call per message, not per page view.
  const known = new Map<string, string>();
  const linkOf = async (ref: SlackMessageRef) => {
    const key = `${ref.channelId}/${ref.ts}`;
    const link = known.get(key) ?? (await permalink(ref));
    if (link && !known.has(key)) {
      if (known.size >= KNOWN_LINKS) known.delete(known.keys().next().value!);
      known.set(key, link);
    }
    return link;
  };
  const refIn = async (map: { name: string; namespace: string; cluster?: string }, release: { namespace: string; name: string }) => {
    try {
      const read = await kube.core.readNamespacedConfigMap({ name: map.name, namespace: map.namespace });
      return latestMessageOf(read.data ?? {}, release, map.cluster);
    } catch (error) {
      if (!isNotFound(error)) onError(error);
      return undefined;
    }
  };
  return async (namespace, name, cluster) => {
    for (const map of messageMapsFor(namespace, cluster, fleet)) {
      const ref = await refIn(map, { namespace, name });
      if (!ref) continue;
      try {
        return await linkOf(ref);
      } catch (error) {
        onError(error);
        return undefined;
      }
    }
    return undefined;
  };
}
