/**
 * Where a release's page is. Slack messages, `/release` answers and the pages themselves link here,
 * so the shape is kept in one pure function: /releases/<cluster>/<namespace>/<name>, the cluster `-`
 * when the server drives one cluster only (no fleet). Every part is percent-encoded.
 */

/** The cluster segment of a release page without a fleet. */
export const OWN_CLUSTER_SEGMENT = '-';

/** A release as a link names it: its fleet cluster (none: the server's own), namespace and name. */
export interface ReleaseRef {
  cluster?: string;
  namespace: string;
  name: string;
}

export function releaseUrl(base: string, cluster: string | undefined, namespace: string, name: string): string {
  const root = base.replace(/\/+$/, '');
  const parts = [cluster ?? OWN_CLUSTER_SEGMENT, namespace, name].map((p) => encodeURIComponent(p));
  return `${root}/releases/${parts.join('/')}`;
}

/** The cluster a URL segment names: undefined for the one cluster of a server without a fleet. */
export function clusterOfSegment(segment: string): string | undefined {
  return segment === OWN_CLUSTER_SEGMENT ? undefined : segment;
}

/**
 * The release page as a Slack mrkdwn link, `<url|page>`; undefined without a web address (nothing is
 * linked then). `|`, `<` and `>` cannot end the link early: the parts are percent-encoded, and so is
 * any of them left in the base.
 */
export function pageLink(base: string | undefined, ref: ReleaseRef, label = 'page'): string | undefined {
  if (!base) return undefined;
  const url = releaseUrl(base, ref.cluster, ref.namespace, ref.name).replace(/[|<>]/g, (c) => encodeURIComponent(c));
  return `<${url}|${label}>`;
}

/** Where a kept plan's whole diff is, page by page (the web's `/plans/<id>/diff`). */
export function planDiffUrl(base: string, planId: string): string {
  return `${base.replace(/\/+$/, '')}/plans/${encodeURIComponent(planId)}/diff`;
}

/** The plan's whole diff as a Slack mrkdwn link; undefined without a web address. */
export function planDiffLink(base: string | undefined, planId: string): string | undefined {
  if (!base) return undefined;
  return `<${planDiffUrl(base, planId).replace(/[|<>]/g, (c) => encodeURIComponent(c))}|the whole diff>`;
}
