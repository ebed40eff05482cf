import { maxSatisfying, eq, valid, validRange } from 'semver';
import { ByteBoundedLru } from './byte-lru.js';
import { checkRepositoryHost, guardedGet, urlHost } from './guarded-get.js';
import { DEFAULT_ALLOWED_REPOSITORY_HOSTS, parseHostPolicy, type HostPolicy } from './host-policy.js';
import { parseIndex, type ChartVersions } from './index-parser.js';
import { ChartNotFoundError, RepositoryNotAllowedError } from './repository-errors.js';

export { ChartNotFoundError } from './repository-errors.js';

/**
 * Resolves a chart version from an http(s) Helm repository's index.yaml. Fetching the index is
 * an HTTP GET, not a helm process, so a periodic check of a range like "2.x" stays cheap. One
 * cache for all workers holds only each chart's version list, bounded by bytes and age.
 */

/** Pure: the newest of `versions` that satisfies `constraint` (newest when absent). */
export function pickChartVersion(listed: readonly string[] | undefined, chart: string, constraint: string | undefined): string {
  const versions = (listed ?? []).filter((v) => !!valid(v));
  if (versions.length === 0) throw new ChartNotFoundError(`chart "${chart}" is not in the repository index`);
  if (constraint && valid(constraint)) {
    // The index's own spelling ("1.0.0+build.1"), which is what helm records.
    const exact = versions.find((v) => v === constraint) ?? versions.find((v) => eq(v, constraint));
    if (!exact) throw new ChartNotFoundError(`chart "${chart}" has no version ${constraint} (newest: ${maxSatisfying(versions, '*')})`);
    return exact;
  }
  const range = constraint ?? '*';
  if (!validRange(range)) throw new ChartNotFoundError(`"${range}" is not a valid semver version or range`);
  const picked = maxSatisfying(versions, range);
  if (!picked) throw new ChartNotFoundError(`chart "${chart}" has no version matching ${range}`);
  return picked;
}

/** Pure: roughly what a version list costs in memory (UTF-16 strings plus object overhead). */
export function estimateBytes(versions: ChartVersions): number {
  let bytes = 64;
  for (const [name, { versions: list, hosts }] of versions) {
    bytes += 96 + name.length * 2;
    for (const v of [...list, ...hosts]) bytes += 40 + v.length * 2;
  }
  return bytes;
}

export interface IndexCacheOptions {
  /** Largest index downloaded; past it the download is aborted. */
  maxIndexBytes: number;
  /** All cached version lists together stay under this; least recently used go first. */
  maxCacheBytes: number;
  ttlMs: number;
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
  failureTtlMs: 10_000,
  fetchTimeoutMs: 15_000,
  policy: parseHostPolicy(DEFAULT_ALLOWED_REPOSITORY_HOSTS),
  now: Date.now,
};

type Cached = { versions: ChartVersions } | { error: Error };

export class RepositoryIndexCache {
  private readonly cache: ByteBoundedLru<Cached>;
  private readonly inFlight = new Map<string, Promise<ChartVersions>>();
  readonly options: IndexCacheOptions;

  constructor(options: Partial<IndexCacheOptions> = {}) {
    this.options = { ...DEFAULT_INDEX_CACHE_OPTIONS, ...options };
    this.cache = new ByteBoundedLru(this.options.maxCacheBytes, this.options.now);
  }

  async resolve(repository: string, chart: string, constraint: string | undefined): Promise<string> {
    const listed = (await this.versions(repository)).get(chart);
    const picked = pickChartVersion(listed?.versions, chart, constraint);
    // helm downloads the archive from the entry's URL, which may name any host: check those too.
    for (const host of listed?.hosts ?? []) await checkRepositoryHost(this.options.policy, repository, host);
    return picked;
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
    return this.cache.bytes;
  }

  private async versions(repository: string): Promise<ChartVersions> {
    const key = repository.replace(/\/+$/, '');
    const cached = this.cache.get(key);
    if (cached) {
      if ('error' in cached) throw cached.error;
      return cached.versions;
    }
    // One fetch per URL at a time: concurrent releases on one repository share it.
    let running = this.inFlight.get(key);
    if (!running) {
      running = this.fetch(key, repository).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, running);
    }
    return running;
  }

  private async fetch(key: string, repository: string): Promise<ChartVersions> {
    try {
      const body = await guardedGet(`${key}/index.yaml`, {
        policy: this.options.policy,
        maxBytes: this.options.maxIndexBytes,
        timeoutMs: this.options.fetchTimeoutMs,
        repository,
      });
      const versions = await parseIndex(body, repository);
      this.cache.set(key, { versions }, estimateBytes(versions), this.options.ttlMs);
      return versions;
    } catch (error) {
      this.cache.set(key, { error: error as Error }, 256, this.options.failureTtlMs);
      throw error;
    }
  }
}
