import type { KubernetesObject } from '@kubernetes/client-node';
import { ReleaseRecordError, decodeReleasePayload } from '../../core/helm-storage/release-record.js';
import { summarizeHistory, type ReleaseHistory, type StoredRelease, type StoredReleaseStatus } from '../../core/helm-storage/release-storage.js';
import { revisionSummary } from '../../core/helm-storage/revision-summary.js';
import { apiErrorMessage } from '../../core/kube/errors.js';
import type { KubeRest } from '../../core/kube/rest-client.js';
import { KeptWatch } from '../../core/kube/watch/kept-watch.js';
import { ListWatch, restWatch } from '../../core/kube/watch/list-watch.js';
import { pagedList } from '../../core/kube/watch/paged-list.js';
import { sharedString, shareStrings } from '../../core/kube/watch/shared-strings.js';
import type { Logger } from '../../core/log.js';

/** Helm's release records (as the controller's record watch selects them: controller/watch/release-record-watch.ts). */
const HELM_RECORDS = 'owner=helm';
const RECORD_TYPE = 'helm.sh/release.v1';
/**
 * Records listed a page at a time: a page's Secrets are live until each is decoded, long enough for
 * V8 to move them to its old space, where they wait for a full collection. 20 a page kept the web's
 * heap peak at start-up 18 MB where 100 took 25 MB (3,000 records; docs/performance.md).
 */
const RECORD_PAGE = 20;
/** Revisions a history answers with (helm keeps 10 unless told otherwise). */
export const MAX_REVISIONS = 20;

/** What the watch keeps of a record Secret: who it is and its revision's summary; `notes` only until the index takes them. */
export interface KeptRecord extends KubernetesObject {
  metadata: { name: string; namespace: string; resourceVersion?: string };
  /** The helm release's name (the record's `name` label). */
  release: string;
  summary: StoredRelease;
  notes?: string;
}

/**
 * Pure: a record Secret decoded once into its summary (src/core/helm-storage's decoder), the body
 * dropped. A record that cannot be decoded keeps its revision and status from helm's labels, so a
 * history still shows it; one without helm's `name` label belongs to no release (`release` empty).
 */
export function keptRecord(obj: KubernetesObject & { type?: string; data?: Record<string, string> }): KeptRecord {
  if ('summary' in obj) return obj as KeptRecord; // already kept (a listed page)
  const { name = '', namespace = '', resourceVersion, labels = {} } = obj.metadata ?? {};
  const release = labels.name ?? '';
  const metadata = { name, namespace: sharedString(namespace), resourceVersion };
  const data = obj.data?.release;
  try {
    if (obj.type !== RECORD_TYPE || !data) throw new ReleaseRecordError(`${namespace}/${name}`, 'has no release data');
    const { summary, notes } = revisionSummary(decodeReleasePayload(data, `${namespace}/${name}`));
    return { metadata, release: sharedString(release), summary: shareStrings(summary), ...(notes ? { notes } : {}) };
  } catch (error) {
    if (!(error instanceof ReleaseRecordError)) throw error;
    const summary: StoredRelease = {
      name: release,
      namespace,
      revision: Number(labels.version) || 0,
      status: (labels.status ?? 'unknown') as StoredReleaseStatus,
      chartName: '',
      chartVersion: '',
      config: {},
      description: error.message,
    };
    return { metadata, release: sharedString(release), summary };
  }
}

/** The newest revision's NOTES of one release, and which revision they are of. */
interface Notes {
  revision: number;
  notes?: string;
}

/**
 * The web's watch of helm's release records (label owner=helm, every namespace), for the assistants'
 * reads: each record is decoded once as the watch delivers it and only its summary is kept, and only
 * the newest revision's NOTES per release. The first LIST is paged (pagedList), so the records are
 * never in memory all at once. A history, a plan that needs no values and a release's NOTES are then
 * answered from memory; until the watch has listed (and while it restarts after a failure), `history`
 * says nothing and the caller reads the API server.
 */
export class HelmRecordWatch {
  private readonly watch: KeptWatch<KeptRecord>;
  /** namespace/release → record Secret name → what is kept of it. */
  private byRelease = new Map<string, Map<string, KeptRecord>>();
  private notesOf = new Map<string, Notes>();

  constructor(opts: { rest: KubeRest; log: Logger; pageSize?: number }) {
    const path = '/api/v1/secrets';
    this.watch = new KeptWatch<KeptRecord>({
      make: () =>
        new ListWatch<KeptRecord>(
          pagedList(opts.rest, path, { labelSelector: HELM_RECORDS }, keptRecord, opts.pageSize ?? RECORD_PAGE),
          restWatch(opts.rest, path, undefined, HELM_RECORDS),
          keptRecord,
        ),
      beforeStart: () => {
        this.byRelease = new Map();
        this.notesOf = new Map();
      },
      wire: (informer, current) => {
        informer.on('add', (obj) => current() && this.put(obj));
        informer.on('update', (obj) => current() && this.put(obj));
        informer.on('delete', (obj) => current() && this.drop(obj));
      },
      // A relist replaces unchanged records in the cache without telling: the index is rebuilt from it.
      onListed: () => this.reindex(),
      onFailure: (error, delayMs, repeated) =>
        opts.log[repeated ? 'debug' : 'warn']({ delayMs, error: apiErrorMessage(error) }, 'web: the helm record watch failed; restarting'),
    });
  }

  async start(): Promise<void> {
    await this.watch.start();
  }

  async stop(): Promise<void> {
    await this.watch.stop();
  }

  get synced(): boolean {
    return this.watch.synced;
  }

  /** A release's revisions (summaries: no values, no manifest), newest first; undefined until the watch has listed. */
  history(namespace: string, releaseName: string): ReleaseHistory | undefined {
    if (!this.synced) return undefined;
    const records = [...(this.byRelease.get(`${namespace}/${releaseName}`)?.values() ?? [])];
    const history = summarizeHistory(records.map((r) => r.summary));
    return history.releases.length > MAX_REVISIONS ? { ...history, releases: history.releases.slice(0, MAX_REVISIONS) } : history;
  }

  /** The names of a release's record Secrets and the version the watch has seen up to; undefined until it has listed. */
  records(namespace: string, releaseName: string): { names: string[]; seenVersion: string } | undefined {
    const seenVersion = this.watch.informer?.seenVersion;
    if (!seenVersion) return undefined;
    return { names: [...(this.byRelease.get(`${namespace}/${releaseName}`)?.keys() ?? [])], seenVersion };
  }

  /** The newest revision's NOTES (undefined: that revision has none); `known` false until the watch has listed. */
  notes(namespace: string, releaseName: string): { known: boolean; revision?: number; notes?: string } {
    if (!this.synced) return { known: false };
    const kept = this.notesOf.get(`${namespace}/${releaseName}`);
    return { known: true, ...(kept ? { revision: kept.revision, ...(kept.notes ? { notes: kept.notes } : {}) } : {}) };
  }

  /** How many record Secrets are held (the bench's memory per release). */
  get size(): number {
    return this.watch.informer?.list().length ?? 0;
  }

  private put(obj: KeptRecord): void {
    if (!obj.release) return;
    const key = sharedString(`${obj.metadata.namespace}/${obj.release}`);
    let records = this.byRelease.get(key);
    if (!records) this.byRelease.set(key, (records = new Map<string, KeptRecord>()));
    records.set(obj.metadata.name, obj);
    // Only the newest revision's NOTES are kept (a release's NOTES are what its current chart says).
    const newest = this.notesOf.get(key);
    if (!newest || obj.summary.revision >= newest.revision)
      this.notesOf.set(key, { revision: obj.summary.revision, ...(obj.notes ? { notes: obj.notes } : {}) });
    delete obj.notes;
  }

  private drop(obj: KeptRecord): void {
    const key = `${obj.metadata.namespace}/${obj.release}`;
    const records = this.byRelease.get(key);
    records?.delete(obj.metadata.name);
    if (records?.size === 0) this.byRelease.delete(key);
    if (this.notesOf.get(key)?.revision === obj.summary.revision) this.notesOf.delete(key);
  }

  private reindex(): void {
    const previous = this.notesOf;
    this.byRelease = new Map();
    this.notesOf = new Map();
    for (const obj of this.watch.informer?.list() ?? []) {
      const key = `${obj.metadata.namespace}/${obj.release}`;
      const had = previous.get(key);
      // A record put earlier had its NOTES taken already: they are carried over for its revision.
      if (obj.notes === undefined && had?.revision === obj.summary.revision && had.notes) obj.notes = had.notes;
      this.put(obj);
    }
  }
}
