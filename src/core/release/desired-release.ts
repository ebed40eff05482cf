import type { PostRender } from './post-render.js';
import type { SecretValues } from './secret-values.js';

/** What a HelmRelease asks for, fully resolved (exact chart version, composed values). */
export interface DesiredRelease {
  chartName: string;
  chartVersion: string;
  /**
   * oci://: the manifest digest the version's tag points at now; git: `git:<commit>`. A new one (a
   * moved tag, a new commit) is an upgrade.
   */
  chartDigest?: string;
  /** Where and how the chart archive is fetched (the controller's business; absent in tests that need none). */
  chartSource?: ChartSource;
  values: Record<string, unknown>;
  /** spec.postRenderers and spec.commonMetadata; absent when there is nothing to post-render. */
  postRender?: PostRender;
  /** postRenderDigest(postRender): recorded on the release, so a change upgrades it. Absent: none. */
  postRenderDigest?: string;
  /**
   * upgrade.preserveValues: helm keeps the last release's values under these (--reuse-values), so
   * the release is in sync when these are all in its values, not when the two are equal.
   */
  preserveValues?: boolean;
  /**
   * status.approvedOverrides (issue 35) that gave way to the declared values (or cannot be placed):
   * their valuesPaths and why, dropped from status by the pass. Absent: none.
   */
  overridesGivenWay?: Array<{ valuesPath: string; why: string }>;
  /**
   * Issue 35: spec.chart.version's range allows a newer version than the one in effect (held while
   * approvals are asked, or approved before): the pass proposes it. Absent: none.
   */
  newerChart?: { from: string; to: string };
  /** status.approvedChart gave way to spec.chart.version, and why: the pass drops it. Absent: it did not. */
  approvedChartGaveWay?: string;
  /** Keyed digest of the values (values-digest.ts). */
  valuesDigest: string;
  /** The chart's (or commit's) signature passed its check (spec.chart.verify, git.verify): what and by whom, for status. */
  verification?: VerifiedArtifact;
  /** Strings that came from Secrets (values and chart credentials): redacted from every message about this release. */
  secrets: SecretValues;
}

/** What passed a signature check, and who signed it. */
export interface VerifiedArtifact {
  /** chart@version (pgp, cosign, notation) or repository@commit (git). */
  artifact: string;
  /** The PGP key's user id and key id, the SSH key's comment and fingerprint, or the cosign key's name in the Secret (a keyless identity), or the notation signing certificate's subject. */
  verifiedBy: string;
  provider: 'pgp' | 'cosign' | 'notation' | 'git';
  /** cosign, notation: the OCI manifest digest verified (a tag pushed again is a new artifact). */
  digest?: string;
}

/** The resolved source of a chart: the repository, the archive's address in it, and how to get in. */
export interface ChartSource {
  repository: string;
  /** oci:// only: oci://host/path/chart, pulled as `<ociRef>@<chartDigest>`. */
  ociRef?: string;
  /** http(s) only: the archive's URL from the index. */
  archiveUrl?: string;
  /** git only: the chart folder in the controller's shared checkout; helm installs from it, nothing is pulled. */
  localChart?: string;
  /** spec.chart.verify: the archive whose signature was checked; helm installs this file, nothing is pulled again. */
  verifiedArchive?: string;
  access: ChartAccess;
}

/**
 * How to reach a chart source: the credentials and TLS material of `spec.chart.secretRef` and
 * `spec.chart.certSecretRef`, read as the HelmRelease's identity. Never logged: JSON and inspect
 * show no content (controller/charts/chart-access.ts makes them so).
 */
/** A proxy for a source's fetches: plain HTTP to it, CONNECT through it to https targets. */
export interface ProxyAccess {
  /** "namespace/name" of the Secret, for messages. */
  secret: string;
  url: URL;
  basic?: { username: string; password: string };
}

export interface ChartAccess {
  /** "namespace/name" of the credentials Secret, for messages. */
  secret?: string;
  /** "namespace/name" of the certificate Secret, for messages. */
  certSecret?: string;
  basic?: { username: string; password: string };
  /** From `.dockerconfigjson`: registry host → user and password (only `auths` is taken). */
  registryLogins?: Map<string, { username: string; password: string }>;
  /** A private CA to trust, a client certificate. PEM. */
  tls?: { ca?: Buffer; cert?: Buffer; key?: Buffer };
  /** oci:// only: plain HTTP. */
  insecure: boolean;
  /** spec.chart.proxySecretRef: every fetch of this source goes through it (controller/charts/proxy-access.ts). */
  proxy?: ProxyAccess;
  /** Tells one set of credentials from another in cache keys; a hash, never the credentials. */
  cacheKey: string;
}
