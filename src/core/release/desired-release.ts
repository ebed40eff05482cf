import type { SecretValues } from './secret-values.js';

/** What a HelmRelease asks for, fully resolved (exact chart version, composed values). */
export interface DesiredRelease {
  chartName: string;
  chartVersion: string;
  values: Record<string, unknown>;
  /** Keyed digest of the values (values-digest.ts). */
  valuesDigest: string;
  /** Strings that came from Secrets: redacted from every message about this release. */
  secrets: SecretValues;
}
