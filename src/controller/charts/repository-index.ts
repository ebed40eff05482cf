import { maxSatisfying, valid, validRange } from 'semver';
import { parse } from 'yaml';

/**
 * Resolves a chart version from an http(s) Helm repository's index.yaml. Fetching the index is
 * an HTTP GET, not a helm process, so a periodic check of a range like "2.x" stays cheap.
 */

export class ChartNotFoundError extends Error {
  override name = 'ChartNotFoundError';
}

interface RepositoryIndex {
  entries?: Record<string, Array<{ version?: string }>>;
}

/** Pure: the newest version of `chart` in the index that satisfies `constraint` (newest when absent). */
export function pickChartVersion(indexYaml: string, chart: string, constraint: string | undefined): string {
  const index = parse(indexYaml) as RepositoryIndex | null;
  const versions = (index?.entries?.[chart] ?? []).map((e) => e.version).filter((v): v is string => !!v && !!valid(v));
  if (versions.length === 0) throw new ChartNotFoundError(`chart "${chart}" is not in the repository index`);
  if (constraint && valid(constraint)) {
    if (!versions.includes(constraint)) {
      throw new ChartNotFoundError(`chart "${chart}" has no version ${constraint} (newest: ${maxSatisfying(versions, '*')})`);
    }
    return constraint;
  }
  const range = constraint ?? '*';
  if (!validRange(range)) throw new ChartNotFoundError(`"${range}" is not a valid semver version or range`);
  const picked = maxSatisfying(versions, range);
  if (!picked) throw new ChartNotFoundError(`chart "${chart}" has no version matching ${range}`);
  return picked;
}

export class RepositoryIndexCache {
  private readonly cache = new Map<string, { fetchedAt: number; body: string }>();

  constructor(
    private readonly ttlMs = 30_000,
    private readonly now: () => number = Date.now,
  ) {}

  async resolve(repository: string, chart: string, constraint: string | undefined): Promise<string> {
    return pickChartVersion(await this.index(repository), chart, constraint);
  }

  private async index(repository: string): Promise<string> {
    const cached = this.cache.get(repository);
    if (cached && this.now() - cached.fetchedAt < this.ttlMs) return cached.body;
    const url = `${repository.replace(/\/+$/, '')}/index.yaml`;
    let response: Response;
    try {
      response = await fetch(url, { signal: AbortSignal.timeout(15_000) });
    } catch (error) {
      throw new ChartNotFoundError(`cannot reach chart repository ${repository}: ${(error as Error).message}`);
    }
    if (!response.ok) throw new ChartNotFoundError(`chart repository ${repository} answered ${response.status} for index.yaml`);
    const body = await response.text();
    this.cache.set(repository, { fetchedAt: this.now(), body });
    return body;
  }
}
