import type { HistoryEntry } from '../../api/helmrelease-status.js';
import { randomBytes } from 'node:crypto';
import type { KubeClients } from '../kube/client.js';
import { isNotFound } from '../kube/errors.js';
import { ValuesDigester } from '../release/values-digest.js';
import type { ReleaseWritten } from './release-written.js';
import { allAsListed, secretByName, type RecordSecret } from './record-by-name.js';
import {
  DEFAULT_RECORD_LIMITS,
  decodeReleasePayload,
  encodeReleasePayload,
  releaseSecretName,
  type HelmReleasePayload,
  type ReleaseRecordLimits,
} from './release-record.js';

/**
 * Reads Helm's own release records (Secrets `sh.helm.release.v1.<name>.v<revision>`) through the
 * API, so deciding whether a release is in sync never starts helm.
 */

export type StoredReleaseStatus =
  'unknown' | 'deployed' | 'uninstalled' | 'superseded' | 'failed' | 'uninstalling' | 'pending-install' | 'pending-upgrade' | 'pending-rollback';

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
  /** The record Secret's labels: Helm's own and those given with --labels (ownership, timeout). */
  labels?: Record<string, string>;
  /** Keyed digest of `config`, set when read through ReleaseStorage (never a plain hash). */
  valuesDigest?: string;
  /** The rendered objects helm applied (hooks and crds/ excluded): what drift is measured against. */
  manifest?: string;
  /** How helm 4 applied it ("ssa" or "csa"; absent in helm 3's records, which is client-side). */
  applyMethod?: string;
}

/** Decodes one release record into what decisions need. */
export function decodeReleaseRecord(secretData: string, labels?: Record<string, string>, record?: string, limits?: ReleaseRecordLimits): StoredRelease {
  return storedRelease(decodeReleasePayload(secretData, record, limits), labels);
}

/** Pure: what decisions need of a release record's payload (decoded, or as helm printed it). */
export function storedRelease(payload: HelmReleasePayload, labels?: Record<string, string>): StoredRelease {
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
    ...(typeof payload.manifest === 'string' ? { manifest: payload.manifest } : {}),
    ...(typeof payload.apply_method === 'string' ? { applyMethod: payload.apply_method } : {}),
    ...(labels ? { labels } : {}),
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

/**
 * Pure: the history just after a successful install or upgrade wrote `written`, from the history
 * read before helm ran, by helm's own bookkeeping: the deployed revision becomes superseded and
 * the new one is deployed. undefined when that bookkeeping is not certain and storage must be
 * read instead: someone else wrote in between (the revision is not the next one), the release had
 * no deployed revision to supersede (helm then supersedes whichever it picks), or the upgrade's
 * history limit pruned records (`maxHistory`, 0 = none).
 */
export function historyAfterWrite(before: ReleaseHistory, written: StoredRelease, maxHistory: number): ReleaseHistory | undefined {
  if (written.status !== 'deployed') return undefined;
  if (written.revision !== (before.latest?.revision ?? 0) + 1) return undefined;
  if (before.releases.length > 0 && !before.deployed) return undefined;
  // helm keeps maxHistory - 1 old records before writing the new one (storage.Create).
  if (maxHistory > 0 && before.releases.length > maxHistory - 1) return undefined;
  const superseded = (r: StoredRelease): StoredRelease =>
    r.status === 'deployed' ? { ...r, status: 'superseded', ...(r.labels ? { labels: { ...r.labels, status: 'superseded' } } : {}) } : r;
  return summarizeHistory([written, ...before.releases.map(superseded)]);
}

/**
 * Pure: a history read without superseded records, completed with the superseded revisions the
 * HelmRelease's status already lists (those records never change again, and pruning them happens
 * only in an upgrade, which rewrites status). Enough for the status a quiet check would write;
 * their values are not known, so nothing may be decided from them.
 */
export function withSupersededFromStatus(current: ReleaseHistory, statusHistory: HistoryEntry[] | undefined): ReleaseHistory {
  const known = new Set(current.releases.map((r) => r.revision));
  const template = current.latest;
  if (!template) return current;
  const superseded: StoredRelease[] = (statusHistory ?? [])
    .filter((entry) => entry.status === 'superseded' && !known.has(entry.revision))
    .map((entry) => ({
      name: template.name,
      namespace: template.namespace,
      revision: entry.revision,
      status: 'superseded' as const,
      chartName: entry.chartName,
      chartVersion: entry.chartVersion,
      ...(entry.appVersion ? { appVersion: entry.appVersion } : {}),
      config: {},
      ...(entry.deployedAt ? { lastDeployed: entry.deployedAt } : {}),
      valuesDigest: entry.valuesDigest,
    }));
  return superseded.length > 0 ? summarizeHistory([...current.releases, ...superseded]) : current;
}

export interface HistoryOptions {
  withoutSuperseded?: boolean;
  notOlderThan?: string;
  /** The caller reads only each revision's summary, never `config` nor `manifest`: a reader that keeps summaries alone may answer (web/live/watched-reads.ts). */
  summary?: boolean;
}

/** A record Secret a history was read from: its name and version, and helm's status label. */
export interface RecordSeen {
  name: string;
  resourceVersion: string;
  status?: string;
}

/**
 * Reads (and, to unlock, writes) release records with the clients it is given: the controller's
 * own, or those of the identity a HelmRelease acts as (src/core/kube/identity.ts).
 */
export class ReleaseStorage {
  /** Readers that only look at history need no shared key; the controller passes its own. */
  constructor(
    private readonly kube: KubeClients,
    private readonly digester = new ValuesDigester(randomBytes(32)),
    private readonly limits: ReleaseRecordLimits = DEFAULT_RECORD_LIMITS,
  ) {}

  /** The same storage (digest key, limits) read through other clients: a HelmRelease's identity. */
  withClients(kube: KubeClients): ReleaseStorage {
    return new ReleaseStorage(kube, this.digester, this.limits);
  }

  /**
   * `withoutSuperseded`: only the records a decision needs (helm's `status` label is kept current
   * as a revision is superseded). A release upgraded many times keeps up to 10 records, each with
   * its chart and manifest; the periodic check of a settled release reads only the newest ones.
   */
  async history(namespace: string, releaseName: string, opts: HistoryOptions = {}): Promise<ReleaseHistory> {
    return (await this.historyAndRecords(namespace, releaseName, opts)).history;
  }

  /** history(), and which record Secrets it was read from (name and resourceVersion each): what a remembered history is checked against. */
  async historyAndRecords(
    namespace: string,
    releaseName: string,
    opts: { withoutSuperseded?: boolean; notOlderThan?: string } = {},
  ): Promise<{ history: ReleaseHistory; records: RecordSeen[] }> {
    const list = await this.kube.core.listNamespacedSecret({
      namespace,
      labelSelector: `owner=helm,name=${releaseName}${opts.withoutSuperseded ? ',status!=superseded' : ''}`,
      // Without a resourceVersion the API server answers only once its watch cache has caught up
      // with etcd, which after any write waits for its ~100 ms progress tick (bench/api-calls.ts).
      // "Not older than" a version the caller knows is served at once and is still as new as it.
      ...(opts.notOlderThan ? { resourceVersion: opts.notOlderThan, resourceVersionMatch: 'NotOlderThan' } : {}),
    });
    return this.summarize(namespace, list.items);
  }

  /**
   * historyAndRecords() from the record Secrets the record watch names, each read by name (not
   * older than `notOlderThan`): the API server answers a GET from its watch cache by key, where a
   * label-selected LIST scans every Secret of the namespace — a namespace of 10,000 releases made
   * adopting them quadratic (docs/performance.md). Undefined when a named record is gone, may not
   * be read by name, or is not one the LIST would have returned (superseded when those are left
   * out, another release's), or when `absent` (a record the names say cannot exist: the next
   * revision's) exists: the caller LISTs as before.
   */
  async historyOfRecords(
    namespace: string,
    releaseName: string,
    names: readonly string[],
    opts: { notOlderThan: string; withoutSuperseded?: boolean; absent?: string },
  ): Promise<{ history: ReleaseHistory; records: RecordSeen[] } | undefined> {
    // All at once: a release keeps up to 10 records, and one after another is 10 round trips.
    const [reads, probe] = await Promise.all([
      Promise.all(names.map((name) => secretByName(this.kube.core, namespace, name, opts.notOlderThan))),
      opts.absent === undefined ? 'gone' : secretByName(this.kube.core, namespace, opts.absent, opts.notOlderThan),
    ]);
    // The absent one there, or its GET refused (the LIST then says why): the names do not stand for the LIST.
    if (probe !== 'gone' || !allAsListed(reads, releaseName, opts.withoutSuperseded)) return undefined;
    return this.summarize(
      namespace,
      reads.map((read) => read.secret),
    );
  }

  /** Each record decoded in turn into its summary, and the Secrets it came from. */
  private summarize(namespace: string, secrets: readonly RecordSecret[]): { history: ReleaseHistory; records: RecordSeen[] } {
    const releases: StoredRelease[] = [];
    const records = secrets.map((secret) => ({
      name: secret.metadata?.name ?? '',
      resourceVersion: secret.metadata?.resourceVersion ?? '',
      status: secret.metadata?.labels?.status,
    }));
    for (const secret of secrets) {
      // One at a time, keeping only the summary: a large record is garbage soon after.
      const record = this.decodeRecord(namespace, secret);
      if (record) releases.push(record);
    }
    return { history: summarizeHistory(releases), records };
  }

  /** One record Secret as read, decoded whole (values included); undefined when it is not helm's record. */
  decodeRecord(namespace: string, secret: RecordSecret): StoredRelease | undefined {
    const data = secret.data?.release;
    if (secret.type !== 'helm.sh/release.v1' || !data) return undefined;
    const record = decodeReleaseRecord(data, secret.metadata?.labels, `${namespace}/${secret.metadata?.name}`, this.limits);
    return { ...record, valuesDigest: this.digester.digest(record.config) };
  }

  /**
   * The history just after a successful install or upgrade: worked out from the history read
   * before it and the record helm printed (no request; historyAfterWrite), or read when that is
   * not certain. `labels` are those given with --labels; helm adds its own.
   */
  async afterWrite(
    namespace: string,
    releaseName: string,
    before: ReleaseHistory | undefined,
    written: ReleaseWritten,
    opts: { labels: Record<string, string>; maxHistory: number },
  ): Promise<ReleaseHistory> {
    if (before && written.release) {
      const helmLabels = { name: releaseName, owner: 'helm', status: written.release.info?.status ?? 'unknown', version: String(written.release.version) };
      const record = storedRelease(written.release, { ...opts.labels, ...helmLabels });
      const derived = historyAfterWrite(before, { ...record, valuesDigest: this.digester.digest(record.config) }, opts.maxHistory);
      if (derived) return derived;
    }
    return this.historyAfter(namespace, releaseName, written.revision);
  }

  /**
   * The history just after a helm operation that wrote `revision`: a GET of that record (served
   * by etcd, so it sees helm's last write) gives a version the LIST is then not older than.
   */
  private async historyAfter(namespace: string, releaseName: string, revision: number | undefined): Promise<ReleaseHistory> {
    if (revision === undefined) return this.history(namespace, releaseName);
    try {
      const record = await this.kube.core.readNamespacedSecret({ namespace, name: releaseSecretName(releaseName, revision) });
      return await this.history(namespace, releaseName, { notOlderThan: record.metadata?.resourceVersion });
    } catch (error) {
      if (!isNotFound(error)) throw error;
      // Pruned or never written under that name: the consistent LIST says what is there.
      return this.history(namespace, releaseName);
    }
  }

  /**
   * Marks one stored revision failed, as Flux's unlock does: the only write helmcrew makes to
   * Helm's storage, for a record left pending-* by a helm process that no longer runs.
   * The resourceVersion makes it fail rather than overwrite a concurrent change.
   */
  async markFailed(namespace: string, releaseName: string, revision: number, description: string, now: Date): Promise<void> {
    const name = releaseSecretName(releaseName, revision);
    const secret = await this.kube.core.readNamespacedSecret({ namespace, name });
    const data = secret.data?.release;
    if (!data) throw new Error(`release record ${namespace}/${name} has no release data`);
    const payload = decodeReleasePayload(data, `${namespace}/${name}`, this.limits);
    payload.info = { ...payload.info, status: 'failed', description };
    secret.data = { ...secret.data, release: encodeReleasePayload(payload) };
    secret.metadata = {
      ...secret.metadata,
      labels: { ...secret.metadata?.labels, status: 'failed', modifiedAt: String(Math.floor(now.getTime() / 1000)) },
    };
    await this.kube.core.replaceNamespacedSecret({ namespace, name, body: secret });
  }
}
