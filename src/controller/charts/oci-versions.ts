import { valid } from 'semver';
import type { ChartAccess } from './chart-access.js';
import type { FreshCache } from './fresh-cache.js';
import { ociChartRef, tagToVersion, versionToTag, type OciRegistryClient } from './oci-registry.js';
import { newestOrNone, pickChartVersion } from './pick-version.js';

/** A chart in a registry, resolved: the version, its tag and the digest the tag points at now. */
export interface ResolvedOciChart {
  version: string;
  /** `sha256:…` of the manifest: what helm pulls, and what tells a moved tag. */
  digest: string;
  /** oci://host/path/chart */
  ref: string;
  /** With `pinned` and a range: the version the range picks from the same tag list. */
  newest?: string;
}

/**
 * Resolves an oci:// chart through the registry API: an exact version is looked up as its tag
 * (one HEAD), a range is picked from the listed tags. Answers are shared through the caches, per
 * set of credentials, and are as old as the asking release's interval at most.
 */
export async function resolveOciChart(
  deps: { client: OciRegistryClient; tags: FreshCache<string[]>; digests: FreshCache<string> },
  query: { repository: string; chart: string; constraint: string | undefined; access: ChartAccess; maxAgeMs: number; pinned?: string; semverFilter?: string },
): Promise<ResolvedOciChart> {
  const { repository, chart, constraint, access, maxAgeMs, pinned, semverFilter } = query;
  const where = ociChartRef(repository, chart, access.insecure);
  const scope = `${where.base}/${where.name}|${access.cacheKey}`;
  const listVersions = async () => (await deps.tags.get(scope, maxAgeMs, () => deps.client.tags(repository, where, access), weighStrings)).map(tagToVersion);
  let version: string;
  let newest: string | undefined;
  if (pinned) {
    // An approved or held version (issue 35): its own digest; the range's pick from the same tag list.
    version = pinned.trim();
    newest = constraint && valid(constraint) ? undefined : newestOrNone(await listVersions(), chart, constraint, semverFilter);
  } else if (constraint && valid(constraint)) {
    version = constraint.trim();
  } else {
    version = pickChartVersion(await listVersions(), chart, constraint, semverFilter);
  }
  const tag = versionToTag(version);
  const digest = await deps.digests.get(`${scope}:${tag}`, maxAgeMs, () => deps.client.digest(repository, where, access, tag), () => 256);
  return { version, digest, ref: where.ref, ...(newest ? { newest } : {}) };
}

const weighStrings = (list: string[]) => 64 + list.reduce((sum, s) => sum + 40 + s.length * 2, 0);
