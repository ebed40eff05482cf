import type { ReleaseHistory } from '../../core/helm-storage/release-storage.js';
import { apiErrorMessage } from '../../core/kube/errors.js';
import type { KubeRest } from '../../core/kube/rest-client.js';
import { KeptWatch } from '../../core/kube/watch/kept-watch.js';
import { StartedOnRead } from '../../core/kube/watch/started-on-read.js';
import { ListWatch, restWatch } from '../../core/kube/watch/list-watch.js';
import { pagedList } from '../../core/kube/watch/paged-list.js';
import type { Logger } from '../../core/log.js';
import { keptRecord, type KeptRecord } from './kept-record.js';
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
export class HelmRecordWatch {
  private readonly lifecycle: StartedOnRead;
  private readonly watch: KeptWatch<KeptRecord>;
  private index = new RecordIndex();

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
        this.index = new RecordIndex();
      },
      wire: (informer, current) => {
        informer.on('add', (obj) => current() && this.index.put(obj));
        informer.on('update', (obj) => current() && this.index.put(obj));
        informer.on('delete', (obj) => current() && this.index.drop(obj));
      },
      // A relist replaces unchanged records in the cache without telling: the index is rebuilt from it.
      onListed: () => this.index.rebuild(this.watch.informer?.list() ?? []),
      onFailure: (error, delayMs, repeated) =>
        opts.log[repeated ? 'debug' : 'warn']({ delayMs, error: apiErrorMessage(error) }, 'web: the helm record watch failed; restarting'),
    });
    this.lifecycle = new StartedOnRead(this.watch);
  }

  /** Started by this or by the first read (started-on-read.ts): the web server leaves it to the first assistant's call. */
  async start(): Promise<void> {
    await this.lifecycle.start();
  }

  async stop(): Promise<void> {
    await this.lifecycle.stop();
  }

  private wanted(): void {
    this.lifecycle.wanted();
  }

  get synced(): boolean {
    return this.watch.synced;
  }

  /** A release's revisions (summaries: no values, no manifest), newest first; undefined until the watch has listed. */
  history(namespace: string, releaseName: string): ReleaseHistory | undefined {
    this.wanted();
    return this.synced ? this.index.history(namespace, releaseName) : undefined;
  }

  /** The names of a release's record Secrets and the version the watch has seen up to; undefined until it has listed. */
  records(namespace: string, releaseName: string): { names: string[]; seenVersion: string } | undefined {
    this.wanted();
    const seenVersion = this.watch.informer?.seenVersion;
    return seenVersion ? { names: this.index.names(namespace, releaseName), seenVersion } : undefined;
  }

  /** The newest revision's NOTES (undefined: that revision has none); `known` false until the watch has listed. */
  notes(namespace: string, releaseName: string): { known: boolean; revision?: number; notes?: string } {
    this.wanted();
    return this.synced ? { known: true, ...this.index.notes(namespace, releaseName) } : { known: false };
  }

  /** How many record Secrets are held (the bench's memory per release). */
  get size(): number {
    return this.watch.informer?.list().length ?? 0;
  }
}
