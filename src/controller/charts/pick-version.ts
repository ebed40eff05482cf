import { eq, maxSatisfying, valid, validRange } from 'semver';
import { ChartNotFoundError } from './repository-errors.js';

/** A semverFilter that does not compile: the spec must change. */
export class SemverFilterError extends ChartNotFoundError {
  override name = 'SemverFilterError';
}

/**
 * Pure: the versions `semverFilter` keeps (Flux's OCIRepository ref.semverFilter: a regular
 * expression over the tags before the range picks). Go's RE2 and JavaScript agree on the usual
 * filters ('.*-rc.*', '^1\\.'); one that does not compile here is named.
 */
export function filterVersions(versions: readonly string[], semverFilter: string | undefined): string[] {
  if (!semverFilter) return [...versions];
  let pattern: RegExp;
  try {
    pattern = new RegExp(semverFilter);
  } catch {
    throw new SemverFilterError(`spec.chart.semverFilter "${semverFilter}" is not a regular expression`);
  }
  return versions.filter((v) => pattern.test(v));
}

/** Pure: the newest of `versions` (those `semverFilter` keeps) that satisfies `constraint` (newest when absent). */
export function pickChartVersion(listed: readonly string[] | undefined, chart: string, constraint: string | undefined, semverFilter?: string): string {
  const all = (listed ?? []).filter((v) => !!valid(v));
  if (all.length === 0) throw new ChartNotFoundError(`chart "${chart}" is not in the repository index`);
  // An exact version is taken as written; the filter narrows what a range may pick.
  const versions = constraint && valid(constraint) ? all : filterVersions(all, semverFilter);
  if (versions.length === 0) throw new ChartNotFoundError(`chart "${chart}" has no version matching semverFilter "${semverFilter}" (newest: ${maxSatisfying(all, '*')})`);
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

/** What a range picks, or undefined when it picks nothing (an exact version is no range: undefined). */
export function newestOrNone(listed: readonly string[] | undefined, chart: string, constraint: string | undefined, semverFilter?: string): string | undefined {
  if (constraint && valid(constraint)) return undefined;
  try {
    return pickChartVersion(listed, chart, constraint, semverFilter);
  } catch (error) {
    if (error instanceof ChartNotFoundError && !(error instanceof SemverFilterError)) return undefined;
    throw error;
  }
}
