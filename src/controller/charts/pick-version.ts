import { eq, maxSatisfying, valid, validRange } from 'semver';
import { ChartNotFoundError } from './repository-errors.js';

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

/** What a range picks, or undefined when it picks nothing (an exact version is no range: undefined). */
export function newestOrNone(listed: readonly string[] | undefined, chart: string, constraint: string | undefined): string | undefined {
  if (constraint && valid(constraint)) return undefined;
  try {
    return pickChartVersion(listed, chart, constraint);
  } catch (error) {
    if (error instanceof ChartNotFoundError) return undefined;
    throw error;
  }
}
