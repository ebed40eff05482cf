import type { KubernetesObject } from '@kubernetes/client-node';
import { ReleaseRecordError, decodeReleasePayload } from '../../core/helm-storage/release-record.js';
import type { StoredRelease, StoredReleaseStatus } from '../../core/helm-storage/release-storage.js';
import { revisionSummary } from '../../core/helm-storage/revision-summary.js';
import { sharedString, shareStrings } from '../../core/kube/watch/shared-strings.js';

const RECORD_TYPE = 'helm.sh/release.v1';

/** What the watch keeps of a record Secret: who it is and its revision's summary; `notes` only until the index takes them. */
export interface KeptRecord extends KubernetesObject {
  metadata: { name: string; namespace: string; resourceVersion?: string };
  /** The helm release's name (the record's `name` label). */
  release: string;
  summary: StoredRelease;
  notes?: string;
  /** Listed as metadata only: the summary holds helm's labels (revision, status) until the record is read whole. */
  pending?: true;
}

/** How a metadata-only LIST sends each item (PartialObjectMetadataList). */
const METADATA_ONLY = 'PartialObjectMetadata';

/**
 * Pure: a record Secret decoded once into its summary (src/core/helm-storage's decoder), the body
 * dropped; a record listed as metadata only is kept `pending` with what its labels say. A record that cannot be decoded keeps its revision and status from helm's labels, so a
 * history still shows it; one without helm's `name` label belongs to no release (`release` empty).
 */
export function keptRecord(obj: KubernetesObject & { type?: string; data?: Record<string, string> }): KeptRecord {
  if ('summary' in obj) return obj as KeptRecord; // already kept (a listed page)
  const { name = '', namespace = '', resourceVersion, labels = {} } = obj.metadata ?? {};
  const release = labels.name ?? '';
  const metadata = { name, namespace: sharedString(namespace), resourceVersion };
  if (obj.kind === METADATA_ONLY) return { metadata, release: sharedString(release), summary: labelSummary(release, namespace, labels, ''), pending: true };
  const data = obj.data?.release;
  try {
    if (obj.type !== RECORD_TYPE || !data) throw new ReleaseRecordError(`${namespace}/${name}`, 'has no release data');
    const { summary, notes } = revisionSummary(decodeReleasePayload(data, `${namespace}/${name}`));
    return { metadata, release: sharedString(release), summary: shareStrings(summary), ...(notes ? { notes } : {}) };
  } catch (error) {
    if (!(error instanceof ReleaseRecordError)) throw error;
    return { metadata, release: sharedString(release), summary: labelSummary(release, namespace, labels, error.message) };
  }
}

/** What helm's labels say of a revision: its number and status (the chart and the rest are in the record's data). */
function labelSummary(release: string, namespace: string, labels: Record<string, string>, description: string): StoredRelease {
  return {
    name: release,
    namespace,
    revision: Number(labels.version) || 0,
    status: (labels.status ?? 'unknown') as StoredReleaseStatus,
    chartName: '',
    chartVersion: '',
    config: {},
    description,
  };
}
