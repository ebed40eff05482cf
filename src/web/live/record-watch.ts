import type { ReleaseHistory } from '../../core/helm-storage/release-storage.js';
import type { KubeRest } from '../../core/kube/rest-client.js';
import { ListWatch, restWatch } from '../../core/kube/watch/list-watch.js';
import { pagedList } from '../../core/kube/watch/paged-list.js';
import type { Logger } from '../../core/log.js';
import { keptRecord, type KeptRecord } from './kept-record.js';
import { OnReadWatch } from './on-read-watch.js';
import { RecordIndex } from './record-index.js';

/** Helm's release records (as the controller's record watch selects them: controller/watch/release-record-watch.ts). */
const HELM_RECORDS = 'owner=helm';
/**
 * Records listed a page at a time: a page's Secrets are live until each is decoded, long enough for
 * V8 to move them to its old space, where they wait for a full collection. 20 a page kept the web's
 * heap peak at start-up 18 MB where 100 took 25 MB (3,000 records; docs/performance.md).
 */
const RECORD_PAGE = 20;

/**
 * The web's watch of helm's release records (label owner=helm, every namespace), for the assistants'
 * reads: each record is decoded once as the watch delivers it and only its summary is kept, and only
 * the newest revision's NOTES per release. The first LIST is paged (pagedList), so the records are
 * never in memory all at once. A history, a plan that needs no values and a release's NOTES are then
 * answered from memory; until the watch has listed (and while it restarts after a failure), `history`
 * says nothing and the caller reads the API server.
 */
export class HelmRecordWatch extends OnReadWatch<KeptRecord> {
  private index = new RecordIndex();

  constructor(opts: { rest: KubeRest; log: Logger; pageSize?: number }) {
    const path = '/api/v1/secrets';
    super({
      make: () =>
        new ListWatch<KeptRecord>(
          pagedList(opts.rest, path, { labelSelector: HELM_RECORDS }, keptRecord, opts.pageSize ?? RECORD_PAGE),
          restWatch(opts.rest, path, undefined, HELM_RECORDS),
          keptRecord,
        ),
      log: opts.log,
      what: 'helm record',
    });
  }

  protected reset(): void {
    this.index = new RecordIndex();
  }

  protected put(obj: KeptRecord) {
    this.index.put(obj);
    return { namespace: obj.metadata.namespace, name: obj.release };
  }

  protected drop(obj: KeptRecord) {
    this.index.drop(obj);
    return { namespace: obj.metadata.namespace, name: obj.release };
  }

  // A relist replaces unchanged records in the cache without telling: the index is rebuilt from it.
  protected rebuilt(all: readonly KeptRecord[]): void {
    this.index.rebuild(all);
  }

  /** A release's revisions (summaries: no values, no manifest), newest first; undefined until the watch has listed. */
  history(namespace: string, releaseName: string): ReleaseHistory | undefined {
    return this.wanted() ? this.index.history(namespace, releaseName) : undefined;
  }

  /** The names of a release's record Secrets and the version the watch has seen up to; undefined until it has listed. */
  records(namespace: string, releaseName: string): { names: string[]; seenVersion: string } | undefined {
    this.wanted();
    const seenVersion = this.watch.informer?.seenVersion;
    return seenVersion ? { names: this.index.names(namespace, releaseName), seenVersion } : undefined;
  }

  /** The newest revision's record Secret by name, and the version the watch has seen up to; undefined until it has listed or when none is held. */
  newest(namespace: string, releaseName: string): { name: string; seenVersion: string } | undefined {
    if (!this.wanted()) return undefined;
    const name = this.index.newestName(namespace, releaseName);
    const seenVersion = this.watch.informer?.seenVersion;
    return name && seenVersion ? { name, seenVersion } : undefined;
  }

  /** The newest revision's NOTES (undefined: that revision has none); `known` false until the watch has listed. */
  notes(namespace: string, releaseName: string): { known: boolean; revision?: number; notes?: string } {
    return this.wanted() ? { known: true, ...this.index.notes(namespace, releaseName) } : { known: false };
  }

  /** How many record Secrets are held (the bench's memory per release). */
  get size(): number {
    return this.watch.informer?.list().length ?? 0;
  }
}
