/**
 * The versions of the unicorn demo chart: one truth for packaging (chart-repo.ts), the demo and
 * the tests. All are made from the single chart source in charts/unicorn/ at packaging time.
 */

export interface UnicornVersion {
  /** Chart version and appVersion. */
  version: string;
  /** Default `color` value of this version: the unicorn's colour on the page. */
  color: string;
  /**
   * True for the version that fails on install/upgrade: its Deployment declares a containerPort
   * out of range ({@link brokenContainerPort}), which the Kubernetes API server rejects when
   * Helm applies it. It renders and lints fine; only the apply fails.
   */
  broken: boolean;
}

export const chartName = 'unicorn';

/** The typo 4.0.0 ships with (8080 with one 0 too many): valid YAML, invalid port. */
export const brokenContainerPort = 80800;

export const chartVersions: readonly UnicornVersion[] = Object.freeze([
  { version: '1.0.0', color: 'pink', broken: false },
  { version: '2.0.0', color: 'blue', broken: false },
  { version: '3.0.0', color: 'green', broken: false },
  { version: '4.0.0', color: 'gold', broken: true },
]);

/**
 * Versions spelled as some charts spell them, packaged alongside but not part of the demo story:
 * tests check that an exact `v…` or `+build` version installs once and then stays in sync.
 */
export const versionSpellings: readonly UnicornVersion[] = Object.freeze([
  { version: '1.0.0+build.1', color: 'pink', broken: false },
  { version: 'v1.1.0', color: 'pink', broken: false },
]);

/** Every version the local chart repository serves. */
export const packagedVersions: readonly UnicornVersion[] = Object.freeze([...chartVersions, ...versionSpellings]);
