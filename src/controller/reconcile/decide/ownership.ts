import { createHash } from 'node:crypto';
import type { HelmRelease } from '../../../api/helmrelease.js';
import type { ReleaseHistory, StoredRelease } from '../../../core/helm-storage/release-storage.js';
import { NO_POST_RENDER } from '../../../core/release/post-render.js';
import { decideHandover } from './handover.js';

/**
 * Which HelmRelease owns a Helm release. helmcrew labels every release record it writes (helm
 * 4's `--labels` stores them on the record Secret) with its owner and the timeout its helm ran
 * with, so a second HelmRelease naming the same release is refused instead of taking it over,
 * and a pending record is judged by the timeout its own holder used. Pure.
 */

export const OWNER_NAMESPACE_LABEL = 'helmcrew.dev/owner-namespace';
export const OWNER_NAME_LABEL = 'helmcrew.dev/owner-name';
/** helm's --timeout of the operation that wrote the record, in seconds. */
export const TIMEOUT_LABEL = 'helmcrew.dev/timeout-seconds';

/**
 * oci:// charts: the manifest digest the release was installed from (hex, cut to the 63 characters
 * a label value holds), so a tag moved to another digest is seen as a change without helm.
 */
export const CHART_DIGEST_LABEL = 'helmcrew.dev/chart-digest';

/**
 * A digest of the post-renderers and common metadata the record was rendered with
 * (core/release/post-render.ts), so a change to them is seen as a change without helm. Always
 * written (`none` without post-rendering): helm merges an upgrade's labels over the previous
 * record's, so an absent label would keep the old digest. A record without it means `none`.
 */
export const POST_RENDER_LABEL = 'helmcrew.dev/post-render-digest';

const LABEL_VALUE_MAX = 63;

/** Pure: `sha256:<64 hex>` as a label value. */
export function chartDigestLabel(digest: string): string {
  return digest.replace(/^[a-z0-9]+:/, '').slice(0, LABEL_VALUE_MAX);
}

/** A label value for a name: itself when it fits (63 characters), else a prefix and a hash. */
export function labelValueFor(name: string): string {
  if (name.length <= LABEL_VALUE_MAX) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 16);
  return `${name.slice(0, LABEL_VALUE_MAX - hash.length - 1).replace(/[-_.]+$/, '')}-${hash}`;
}

/** The labels helmcrew puts on every release record it writes for this HelmRelease. */
export function releaseLabels(release: HelmRelease, timeoutSeconds: number, chartDigest?: string, postRenderDigest?: string): Record<string, string> {
  return {
    [POST_RENDER_LABEL]: postRenderDigest ?? NO_POST_RENDER,
    [OWNER_NAMESPACE_LABEL]: release.metadata.namespace,
    [OWNER_NAME_LABEL]: labelValueFor(release.metadata.name),
    [TIMEOUT_LABEL]: String(timeoutSeconds),
    ...(chartDigest ? { [CHART_DIGEST_LABEL]: chartDigestLabel(chartDigest) } : {}),
  };
}

export type Ownership =
  /** Nothing stored (or only an uninstalled record): free to install. */
  | { kind: 'free' }
  | { kind: 'ours' }
  /** Labelled for another HelmRelease: never upgraded, unlocked or uninstalled from here. */
  | { kind: 'other'; owner: string }
  /** Installed by Flux and handed over to this HelmRelease (handover.ts): its next upgrade makes it ours. */
  | { kind: 'handover'; release: string; from: string; revision: number }
  /** No owner label and not installed by this HelmRelease (by hand, or another tool); `refused`: why a named handover was not taken. */
  | { kind: 'unmanaged'; refused?: string };

/**
 * Decided on the newest record, since helm copies labels forward and every write by helmcrew sets
 * them. A record without owner labels predates ownership labels: it is ours only when this
 * HelmRelease's status says it installed exactly this release; anything else is not adopted.
 */
export function determineOwnership(release: HelmRelease, history: ReleaseHistory): Ownership {
  const latest = history.latest;
  if (!latest || latest.status === 'uninstalled') return { kind: 'free' };
  const namespace = latest.labels?.[OWNER_NAMESPACE_LABEL];
  const name = latest.labels?.[OWNER_NAME_LABEL];
  if (namespace !== undefined || name !== undefined) {
    const ours = namespace === release.metadata.namespace && name === labelValueFor(release.metadata.name);
    return ours ? { kind: 'ours' } : { kind: 'other', owner: `HelmRelease ${namespace ?? '?'}/${name ?? '?'}` };
  }
  if (installedByThis(release, latest)) return { kind: 'ours' };
  const handover = decideHandover(release, history);
  if (handover.kind === 'adopt') return { kind: 'handover', release: handover.release, from: handover.from, revision: handover.revision };
  return handover.kind === 'refused' ? { kind: 'unmanaged', refused: handover.reason } : { kind: 'unmanaged' };
}

function installedByThis(release: HelmRelease, record: StoredRelease): boolean {
  return release.status?.releaseName === record.name && release.status?.releaseNamespace === record.namespace;
}

/** The timeout the holder of a record recorded, when it did (helmcrew writes it; helm by hand does not). */
export function recordedTimeoutSeconds(record: StoredRelease): number | undefined {
  const raw = record.labels?.[TIMEOUT_LABEL];
  if (raw === undefined || !/^[0-9]{1,9}$/.test(raw)) return undefined;
  return Number(raw);
}

/** For status messages: who owns the release, in words. */
export function describeOwner(ownership: Ownership): string {
  switch (ownership.kind) {
    case 'other':
      return `is owned by ${ownership.owner}`;
    case 'unmanaged':
      return `was not installed by this HelmRelease (it has no helmcrew owner label)${ownership.refused ? `; ${ownership.refused}` : ''}`;
    case 'handover':
      return `is being taken over from ${ownership.from}`;
    default:
      return 'is free';
  }
}
