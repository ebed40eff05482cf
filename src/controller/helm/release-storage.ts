import { gunzipSync } from 'node:zlib';
import type { KubeClients } from '../kube/client.js';

/**
 * Reads Helm's own release records (Secrets `sh.helm.release.v1.<name>.v<revision>`) through the
 * API, so deciding whether a release is in sync never starts helm.
 */

export type StoredReleaseStatus =
  | 'unknown'
  | 'deployed'
  | 'uninstalled'
  | 'superseded'
  | 'failed'
  | 'uninstalling'
  | 'pending-install'
  | 'pending-upgrade'
  | 'pending-rollback';

export interface StoredRelease {
  name: string;
  namespace: string;
  revision: number;
  status: StoredReleaseStatus;
  chartName: string;
  chartVersion: string;
  appVersion?: string;
  /** The user-supplied values helm was given (its `config`). */
  config: Record<string, unknown>;
  lastDeployed?: string;
  description?: string;
}

interface HelmReleasePayload {
  name: string;
  namespace: string;
  version: number;
  config?: Record<string, unknown> | null;
  info?: { status?: string; last_deployed?: string; description?: string };
  chart?: { metadata?: { name?: string; version?: string; appVersion?: string } };
}

/** Decodes one release record: base64 (Secret data) of base64 of gzip of JSON. */
export function decodeReleaseRecord(secretData: string): StoredRelease {
  const helmEncoded = Buffer.from(secretData, 'base64').toString('utf8');
  let bytes = Buffer.from(helmEncoded, 'base64');
  // Helm gzips records; the magic bytes say whether this one is.
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = gunzipSync(bytes);
  const payload = JSON.parse(bytes.toString('utf8')) as HelmReleasePayload;
  return {
    name: payload.name,
    namespace: payload.namespace,
    revision: payload.version,
    status: (payload.info?.status ?? 'unknown') as StoredReleaseStatus,
    chartName: payload.chart?.metadata?.name ?? '',
    chartVersion: payload.chart?.metadata?.version ?? '',
    appVersion: payload.chart?.metadata?.appVersion,
    config: payload.config ?? {},
    lastDeployed: payload.info?.last_deployed,
    description: payload.info?.description,
  };
}

export interface ReleaseHistory {
  /** Newest first. */
  releases: StoredRelease[];
  latest?: StoredRelease;
  deployed?: StoredRelease;
}

/** Pure: latest and deployed from a list of records. */
export function summarizeHistory(releases: StoredRelease[]): ReleaseHistory {
  const sorted = [...releases].sort((a, b) => b.revision - a.revision);
  return { releases: sorted, latest: sorted[0], deployed: sorted.find((r) => r.status === 'deployed') };
}

export class ReleaseStorage {
  constructor(private readonly kube: KubeClients) {}

  async history(namespace: string, releaseName: string): Promise<ReleaseHistory> {
    const list = await this.kube.core.listNamespacedSecret({
      namespace,
      labelSelector: `owner=helm,name=${releaseName}`,
    });
    const releases: StoredRelease[] = [];
    for (const secret of list.items) {
      const data = secret.data?.release;
      if (secret.type !== 'helm.sh/release.v1' || !data) continue;
      releases.push(decodeReleaseRecord(data));
    }
    return summarizeHistory(releases);
  }
}
