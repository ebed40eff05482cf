/**
 * Where a release's page is. Slack messages and `/release` answers link here, so the shape is kept
 * in one pure function: /releases/<cluster>/<namespace>/<name>, the cluster `-` when the server
 * drives one cluster only (no fleet). Every part is percent-encoded.
 */

/** The cluster segment of a release page without a fleet. */
export const OWN_CLUSTER_SEGMENT = '-';

export function releaseUrl(base: string, cluster: string | undefined, namespace: string, name: string): string {
  const root = base.replace(/\/+$/, '');
  const parts = [cluster ?? OWN_CLUSTER_SEGMENT, namespace, name].map((p) => encodeURIComponent(p));
  return `${root}/releases/${parts.join('/')}`;
}

/** The cluster a URL segment names: undefined for the one cluster of a server without a fleet. */
export function clusterOfSegment(segment: string): string | undefined {
  return segment === OWN_CLUSTER_SEGMENT ? undefined : segment;
}
