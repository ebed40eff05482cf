import { valid } from 'semver';
import type { ChartRef } from '../../api/helmrelease.js';
import { ANONYMOUS, accessRefused, ChartAccessError, type ChartAccess } from './chart-access.js';
import { FreshCache } from './fresh-cache.js';
import { checkRepositoryHost, guardedRequest, urlHost } from './guarded-get.js';
import { DEFAULT_ALLOWED_REPOSITORY_HOSTS, parseHostPolicy, type HostPolicy } from './host-policy.js';
import { DEFAULT_PARSE_LIMITS, parseIndex, type ChartVersions } from './index-parser.js';
import { ociChartRef, OciRegistryClient } from './oci-registry.js';
import { resolveOciChart } from './oci-versions.js';
import { newestOrNone, pickChartVersion } from './pick-version.js';
import { ChartNotFoundError, RepositoryNotAllowedError, RepositoryUnreachableError } from './repository-errors.js';

export { ChartNotFoundError } from './repository-errors.js';
export { pickChartVersion } from './pick-version.js';

/**
 * Resolves a chart version without starting helm: from an http(s) Helm repository's index.yaml,
 * or from an OCI registry's tags. A periodic check of a range like "2.x" stays an HTTP request
 * or two, and a conditional one (ETag, If-Modified-Since) when the index is unchanged. One cache
 * for all workers holds each chart's version list, bounded by bytes; an answer is reused while
 * younger than the asking release's interval.
 */

/** What a chart resolves to: the exact version, and where its archive is. */
export interface ResolvedChart {
  version: string;
  /** oci:// only: the manifest digest the version's tag points at now. */
  digest?: string;
  /** oci:// only: oci://host/path/chart. */
  ociRef?: string;
  /** http(s) only: the archive's absolute URL, as the index gives it. */
  archiveUrl?: string;
  /**
   * With a pinned version (resolveChart's `pinned`) and a range: the version the range picks now,
   * from the same index or tag list (undefined when it picks none).
   */
  newest?: string;
}

/** Pure: roughly what a version list costs in memory (UTF-16 strings plus object overhead). */
export function estimateBytes(versions: ChartVersions): number {
  let bytes = 64;
  for (const [name, { versions: list, urls, hosts }] of versions) {
    bytes += 96 + name.length * 2;
    for (const v of [...list, ...(urls ?? []), ...hosts]) bytes += 40 + v.length * 2;
  }
  return bytes;
}

export interface IndexCacheOptions {
  /** Largest index downloaded; past it the download is aborted. */
  maxIndexBytes: number;
  /** All cached version lists together stay under this; least recently used go first. */
  maxCacheBytes: number;
  /** How old an answer may be when the caller names no interval. */
  ttlMs: number;
  /** How long an answer is kept for revalidation (ETag) after it is no longer fresh. */
  retainMs: number;
  /** A failed fetch is remembered this long, so many releases on one bad URL fetch it once. */
  failureTtlMs: number;
  fetchTimeoutMs: number;
  policy: HostPolicy;
  now: () => number;
}

export const DEFAULT_INDEX_CACHE_OPTIONS: IndexCacheOptions = {
  maxIndexBytes: 20 * 1024 * 1024,
  maxCacheBytes: 64 * 1024 * 1024,
  ttlMs: 30_000,
  retainMs: 60 * 60_000,
  failureTtlMs: 10_000,
  fetchTimeoutMs: 15_000,
  policy: parseHostPolicy(DEFAULT_ALLOWED_REPOSITORY_HOSTS),
  now: Date.now,
};

interface IndexAnswer {
  versions: ChartVersions;
  etag?: string;
  lastModified?: string;
}

const basicAuthorization = (login: { username: string; password: string }) => `Basic ${Buffer.from(`${login.username}:${login.password}`).toString('base64')}`;

export class RepositoryIndexCache {
  readonly options: IndexCacheOptions;
  private readonly indexes: FreshCache<IndexAnswer>;
  private readonly tags: FreshCache<string[]>;
  private readonly digests: FreshCache<string>;
  private readonly registry: OciRegistryClient;

  constructor(options: Partial<IndexCacheOptions> = {}) {
    this.options = { ...DEFAULT_INDEX_CACHE_OPTIONS, ...options };
    const { maxCacheBytes, retainMs, failureTtlMs, now } = this.options;
    this.indexes = new FreshCache({ maxBytes: maxCacheBytes, retainMs, failureTtlMs, now });
    // Tag lists and digests are small; a tenth of the budget is plenty.
    this.tags = new FreshCache({ maxBytes: Math.ceil(maxCacheBytes / 10), retainMs, failureTtlMs, now });
    this.digests = new FreshCache({ maxBytes: Math.ceil(maxCacheBytes / 10), retainMs, failureTtlMs, now });
    this.registry = new OciRegistryClient({ policy: this.options.policy, timeoutMs: this.options.fetchTimeoutMs, maxBytes: this.options.maxIndexBytes });
  }

  /** The exact version `constraint` picks in an http(s) repository. */
  async resolve(repository: string, chart: string, constraint: string | undefined, access: ChartAccess = ANONYMOUS, maxAgeMs?: number): Promise<string> {
    return (await this.resolveHttp(repository, chart, constraint, access, maxAgeMs ?? this.options.ttlMs)).version;
  }

  /**
   * The chart a HelmRelease names, resolved from its repository or registry. A version the cached
   * answer lacks (a spec just changed to a version published a minute ago) is looked up again in
   * an answer at most `ttlMs` old before it counts as missing. `pinned`: this exact version instead
   * of what spec.chart.version picks (an approved or held one, issue 35); the answer's `newest`
   * then says what the range picks, from the same fetch.
   */
  async resolveChart(chart: ChartRef, access: ChartAccess, maxAgeMs: number, pinned?: string): Promise<ResolvedChart> {
    try {
      return await this.resolveOnce(chart, access, maxAgeMs, pinned);
    } catch (error) {
      const missing = error instanceof ChartNotFoundError && !(error instanceof RepositoryUnreachableError) && !(error instanceof ChartAccessError);
      if (!missing || maxAgeMs <= this.options.ttlMs) throw error;
      return this.resolveOnce(chart, access, this.options.ttlMs, pinned);
    }
  }

  private async resolveOnce(chart: ChartRef, access: ChartAccess, maxAgeMs: number, pinned: string | undefined): Promise<ResolvedChart> {
    const { repository } = chart;
    // The CRD asks for repository or git; git charts are resolved by git/git-chart-sources.ts.
    if (!repository) throw new ChartNotFoundError('spec.chart.repository is not set');
    if (repository.startsWith('oci://')) {
      await this.checkHost(repository);
      const deps = { client: this.registry, tags: this.tags, digests: this.digests };
      const query = { repository, chart: chart.name, constraint: chart.version, access, maxAgeMs, semverFilter: chart.semverFilter };
      const oci = await resolveOciChart(deps, { ...query, ...(pinned ? { pinned } : {}) });
      return { version: oci.version, digest: oci.digest, ociRef: oci.ref, ...(oci.newest ? { newest: oci.newest } : {}) };
    }
    // spec.chart.verify pgp downloads the archive and its .prov itself: it needs the archive's URL.
    return this.resolveHttp(repository, chart.name, chart.version, access, maxAgeMs, pinned, {
      wantUrls: chart.verify?.provider === 'pgp',
      ...(chart.semverFilter ? { semverFilter: chart.semverFilter } : {}),
    });
  }

  /**
   * An http(s) chart archive fetched with the repository's credentials and TLS material (helm
   * takes a password for a chart URL only from a repositories.yaml beside a cached index). The
   * password and client certificate go only to the repository's own origin, as helm's default.
   */
  async downloadArchive(url: string, repository: string, access: ChartAccess): Promise<Buffer> {
    // An oci:// reference by digest (a source with a proxy): its chart layer, through the same client as its tags.
    const byDigest = /^(oci:\/\/.+)\/([^/@]+)@(sha256:[0-9a-f]{64})$/.exec(url);
    if (byDigest) return this.registry.chartArchive(repository, ociChartRef(repository, byDigest[2]!, access.insecure), access, byDigest[3]!);
    const sameOrigin = new URL(url).origin === new URL(repository).origin;
    const tls = sameOrigin ? access.tls : access.tls?.ca ? { ca: access.tls.ca } : undefined;
    const res = await guardedRequest(url, {
      policy: this.options.policy,
      maxBytes: this.options.maxIndexBytes,
      timeoutMs: this.options.fetchTimeoutMs,
      repository,
      headers: { accept: 'application/gzip, */*;q=0.1', ...(sameOrigin && access.basic ? { authorization: basicAuthorization(access.basic) } : {}) },
      ...(tls ? { tls } : {}),
      ...(access.proxy ? { proxy: access.proxy } : {}),
    });
    if (res.status === 401 || res.status === 403) throw accessRefused(repository, access);
    if (res.status !== 200) throw new ChartNotFoundError(`could not download the chart archive from ${repository}`);
    return res.body;
  }

  /** Applies the host policy to a repository helm will contact itself (oci://). */
  async checkHost(repository: string): Promise<void> {
    let url: URL;
    try {
      url = new URL(repository);
    } catch {
      throw new RepositoryNotAllowedError(repository, 'it is not a URL');
    }
    await checkRepositoryHost(this.options.policy, repository, urlHost(url));
  }

  /** Bytes the cache holds now (for tests and metrics). */
  get cachedBytes(): number {
    return this.indexes.bytes + this.tags.bytes + this.digests.bytes;
  }

  private async resolveHttp(
    repository: string,
    chart: string,
    constraint: string | undefined,
    access: ChartAccess,
    maxAgeMs: number,
    pinned?: string,
    options: { wantUrls?: boolean; semverFilter?: string } = {},
  ): Promise<ResolvedChart> {
    const base = repository.replace(/\/+$/, '');
    const keepUrls = (options.wantUrls ?? false) || ownsDownload(access);
    const { versions } = await this.indexes.get(
      `${base}|${access.cacheKey}${keepUrls ? '|urls' : ''}`,
      maxAgeMs,
      (previous) => this.fetchIndex(base, repository, access, previous, keepUrls),
      (a) => estimateBytes(a.versions),
    );
    const listed = versions.get(chart);
    if (pinned) {
      // The pinned version from the same index; what the range picks, for the proposal.
      const held = await this.resolveHttp(repository, chart, pinned, access, maxAgeMs, undefined, { wantUrls: options.wantUrls ?? false });
      const newest = newestOrNone(listed?.versions, chart, constraint, options.semverFilter);
      return { ...held, ...(newest ? { newest } : {}) };
    }
    const picked = pickChartVersion(listed?.versions, chart, constraint, options.semverFilter);
    // helm downloads the archive from the entry's URL, which may name any host: check those too.
    for (const host of listed?.hosts ?? []) await checkRepositoryHost(this.options.policy, repository, host);
    const written = listed!.urls?.[listed!.versions.indexOf(picked)];
    const archiveUrl = written ? new URL(written, `${base}/`).href : undefined;
    // An exact version stays as written (chart-version.ts); a range gives the index's spelling.
    return { version: constraint && valid(constraint) ? constraint.trim() : picked, ...(archiveUrl ? { archiveUrl } : {}) };
  }

  private async fetchIndex(base: string, repository: string, access: ChartAccess, previous: IndexAnswer | undefined, keepUrls: boolean): Promise<IndexAnswer> {
    const headers: Record<string, string> = {};
    if (access.basic) headers.authorization = basicAuthorization(access.basic);
    if (previous?.etag) headers['if-none-match'] = previous.etag;
    if (previous?.lastModified) headers['if-modified-since'] = previous.lastModified;
    const res = await guardedRequest(`${base}/index.yaml`, {
      policy: this.options.policy,
      maxBytes: this.options.maxIndexBytes,
      timeoutMs: this.options.fetchTimeoutMs,
      repository,
      headers,
      tls: access.tls,
      ...(access.proxy ? { proxy: access.proxy } : {}),
    });
    if (res.status === 304 && previous) return previous;
    if (res.status === 401 || res.status === 403) throw accessRefused(repository, access);
    if (res.status !== 200) throw new RepositoryUnreachableError(repository);
    // Archive URLs only where the controller downloads archives itself (credentials, a private CA, a proxy, provenance checks).
    const versions = await parseIndex(res.body, repository, { ...DEFAULT_PARSE_LIMITS, keepUrls });
    const one = (name: string) => [res.headers[name]].flat()[0];
    return { versions, etag: one('etag'), lastModified: one('last-modified') };
  }
}

/**
 * Whether the controller downloads this source's http(s) archives itself instead of helm: with
 * credentials or a private CA (helm takes them only beside a cached index), and with a proxy, so
 * the download passes the proxy and the host policy as the index did.
 */
export function ownsDownload(access: ChartAccess): boolean {
  return !!access.secret || !!access.certSecret || !!access.proxy;
}
