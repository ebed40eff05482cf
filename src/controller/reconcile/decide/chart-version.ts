import { parse } from 'semver';

/**
 * Whether the chart version helm recorded (Chart.yaml's `version`, as written there) is the one
 * the HelmRelease asks for. helm pull takes the requested string exactly when the repository has
 * it, and otherwise the version it satisfies as a constraint, where a leading `v` and build
 * metadata (`+build.1`) do not count. So: equal text, or equal semver with the same build
 * metadata when the request names one. Comparing normalized text (what semver.valid gives)
 * made `v1.0.0` and `1.0.0+build.1` upgrade on every check.
 */
export function sameChartVersion(recorded: string, requested: string): boolean {
  if (recorded === requested) return true;
  const have = parse(recorded);
  const want = parse(requested);
  if (!have || !want) return false;
  if (have.compare(want) !== 0) return false;
  return want.build.length === 0 || want.build.join('.') === have.build.join('.');
}
