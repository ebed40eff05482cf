import { isPlainObject } from '../release/values.js';
import type { HelmReleasePayload } from './release-record.js';

/** What a successful install or upgrade wrote, from helm's own output. */
export interface ReleaseWritten {
  /** undefined when helm's output could not be read as a release (then storage is listed instead). */
  revision?: number;
  /** The record as helm wrote it, the parts decisions read (no chart files; the manifest for status.inventory). */
  release?: HelmReleasePayload;
}

/** Pure: the release in `helm install|upgrade --output json`; tolerant of anything else. */
export function releaseWritten(stdout: string): ReleaseWritten {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch {
    return {};
  }
  if (!isPlainObject(parsed)) return {};
  const { version, name, namespace, info, chart, config } = parsed;
  if (typeof version !== 'number' || !Number.isInteger(version) || version <= 0) return {};
  if (typeof name !== 'string' || typeof namespace !== 'string' || !isPlainObject(info) || typeof info.status !== 'string') return { revision: version };
  const metadata = isPlainObject(chart) && isPlainObject(chart.metadata) ? chart.metadata : {};
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  return {
    revision: version,
    release: {
      name,
      namespace,
      version,
      config: isPlainObject(config) ? config : {},
      info: { status: info.status, last_deployed: text(info.last_deployed), description: text(info.description) },
      chart: { metadata: { name: text(metadata.name), version: text(metadata.version), appVersion: text(metadata.appVersion) } },
      ...(typeof parsed.manifest === 'string' ? { manifest: parsed.manifest } : {}),
      ...(typeof parsed.apply_method === 'string' ? { apply_method: parsed.apply_method } : {}),
    },
  };
}
