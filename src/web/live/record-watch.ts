import type { KubernetesObject } from '@kubernetes/client-node';
import type { ReleaseHistory } from '../../core/helm-storage/release-storage.js';
import { apiErrorMessage } from '../../core/kube/errors.js';
import type { KubeRest } from '../../core/kube/rest-client.js';
import { ListWatch, restWatch } from '../../core/kube/watch/list-watch.js';
import { pagedList } from '../../core/kube/watch/paged-list.js';
import type { Logger } from '../../core/log.js';
import { keptRecord, type KeptRecord } from './kept-record.js';
import { OnReadWatch } from './on-read-watch.js';
import { eachSecretWhole, fillPending, recordByName } from './record-reads.js';
import { RecordIndex } from './record-index.js';

/** Helm's release records (as the controller's record watch selects them: controller/watch/release-record-watch.ts). */
const HELM_RECORDS = 'owner=helm';
/**
 * Records listed a page at a time: a page's Secrets are live until each is decoded, long enough for
 * V8 to move them to its old space, where they wait for a full collection. 20 a page kept the web's
 * heap peak at start-up 18 MB where 100 took 25 MB (3,000 records; docs/performance.md).
 */
const RECORD_PAGE = 20;
/** The first LIST asks for metadata only: helm's labels name every record, its revision and status; the data waits for a reader. */
const METADATA_LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';

/**
 * The web's watch of helm's release records (label owner=helm, every namespace), for the release
 * pages' timelines and the assistants' reads: only each record's summary is kept, and only the
 * newest revision's NOTES per release. The first LIST asks for metadata only (names and helm's
 * labels: a fleet page nobody opens a release of never decodes a record), in pages; a release's
 * listed records are read whole once, by name, when a page or an assistant first asks for its
 * history (`filled`). Every record the watch delivers afterwards comes whole and is decoded as it
 * arrives, so a change costs open pages no request. Until the watch has listed (and while it
 * restarts after a failure, or a release's records are being read), `history` says nothing and the
 * caller reads the API server.
 */
export class HelmRecordWatch extends OnReadWatch<KeptRecord> {
  private index = new RecordIndex();
  private readonly filling = new Map<string, Promise<KubernetesObject | undefined>>();
  private everyRecord = false;
  private readonly rest: KubeRest;
  private readonly log: Logger;

  constructor(opts: { rest: KubeRest; log: Logger; pageSize?: number }) {
    const path = '/api/v1/secrets';
    super({
      make: () =>
        new ListWatch<KeptRecord>(
          pagedList(opts.rest, path, { labelSelector: HELM_RECORDS }, keptRecord, opts.pageSize ?? RECORD_PAGE, METADATA_LIST),
          restWatch(opts.rest, path, undefined, HELM_RECORDS),
          keptRecord,
        ),
      log: opts.log,
      what: 'helm record',
    });
    this.rest = opts.rest;
    this.log = opts.log;
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
    if (this.everyRecord) this.readAll();
  }

  /** A release's revisions (summaries: no values, no manifest), newest first; undefined until the watch has listed and the release's records are read (asking starts that). */
  history(namespace: string, releaseName: string): ReleaseHistory | undefined {
    if (!this.wanted() || this.unread(namespace, releaseName)) return undefined;
    return this.index.history(namespace, releaseName);
  }

  /**
   * Once the release's listed records are read whole (a failed read leaves them unread: `history`
   * then says nothing). When this call waited for that read, it gives the newest revision's Secret
   * as read, whole, so a page need not GET it again for its values.
   */
  async filled(namespace: string, releaseName: string): Promise<KubernetesObject | undefined> {
    if (!this.wanted()) return undefined;
    this.unread(namespace, releaseName);
    return this.filling.get(`${namespace}/${releaseName}`);
  }

  /** Whether some of the release's records are known by their labels only; if so, their read is started (once). */
  private unread(namespace: string, releaseName: string): boolean {
    const pending = this.index.pending(namespace, releaseName);
    if (pending.length === 0) return false;
    const key = `${namespace}/${releaseName}`;
    if (!this.filling.has(key)) {
      const seenVersion = this.watch.informer?.seenVersion;
      const read = this.readWhole(namespace, pending, seenVersion)
        .then((secrets) => {
          this.touched({ namespace, name: releaseName });
          const newest = this.index.newestName(namespace, releaseName);
          return secrets.find((secret) => secret?.metadata?.name === newest);
        })
        .catch((error: unknown) => void this.log.warn({ release: key, error: apiErrorMessage(error) }, 'web: a release’s helm records could not be read'))
        .finally(() => this.filling.delete(key));
      this.filling.set(key, read);
    }
    return true;
  }

  /** Each record GET by name, not older than what the watch has seen, decoded into the object the cache and index hold; the Secrets as read. */
  private async readWhole(namespace: string, records: KeptRecord[], notOlderThan: string | undefined): Promise<(KubernetesObject | undefined)[]> {
    const index = this.index;
    return Promise.all(
      records.map(async (held) => {
        const secret = await recordByName(this.rest, namespace, held.metadata.name, notOlderThan);
        // Gone (the watch will say so), the watch has put a newer one in its place, or it restarted meanwhile.
        if (secret && index === this.index && fillPending(held, secret)) index.put(held);
        return secret;
      }),
    );
  }

  /**
   * Assistants ask about any release, at random: from their first call on, every record listed as
   * metadata only is read whole in the background, 20 a page (again after each list), so their reads
   * come from memory. Release pages alone never ask for this: they read the releases they open.
   */
  readEveryRecord(): void {
    if (this.everyRecord) return;
    this.everyRecord = true;
    if (this.wanted()) this.readAll();
  }

  /** The background read of every record (readEveryRecord) as it last started: settled once its pages have all come. */
  everyRead: Promise<void> = Promise.resolve();

  private readAll(): void {
    const index = this.index;
    const stale = new Error('the record watch listed again');
    this.everyRead = eachSecretWhole(
      this.rest,
      HELM_RECORDS,
      (secret) => {
        if (index !== this.index) throw stale;
        const { namespace = '', name = '', labels = {}, resourceVersion } = secret.metadata ?? {};
        const held = index.find(namespace, labels.name ?? '', name);
        if (held && held.metadata.resourceVersion === resourceVersion && fillPending(held, secret)) index.put(held);
      },
      RECORD_PAGE,
    ).catch((error: unknown) => {
      if (error !== stale)
        this.log.warn({ error: apiErrorMessage(error) }, 'web: helm records could not be read whole; releases are read as they are asked for');
    });
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

  /** The newest revision's NOTES (undefined: that revision has none); `known` false until the watch has listed and the release's records are read (asking starts that). */
  notes(namespace: string, releaseName: string): { known: boolean; revision?: number; notes?: string } {
    if (!this.wanted() || this.unread(namespace, releaseName)) return { known: false };
    return { known: true, ...this.index.notes(namespace, releaseName) };
  }

  /** How many record Secrets are held (the bench's memory per release). */
  get size(): number {
    return this.watch.informer?.list().length ?? 0;
  }
}
