import { gunzipSync, gzipSync } from 'node:zlib';

/**
 * Helm's release record format: the Secret's `release` key holds base64 (Helm's) of gzip of
 * JSON, which the Kubernetes API wraps in base64 once more. Kept apart so reading and the one
 * write helmcrew does (unlocking) share one definition.
 */

export interface HelmReleasePayload {
  name: string;
  namespace: string;
  version: number;
  config?: Record<string, unknown> | null;
  info?: { status?: string; last_deployed?: string; description?: string; [key: string]: unknown };
  chart?: { metadata?: { name?: string; version?: string; appVersion?: string } };
  [key: string]: unknown;
}

/**
 * Anyone who can write a Secret in a release's namespace can plant a record: a few hundred KB
 * of gzip inflate to gigabytes. A Secret holds at most 1 MiB; a real record of even a large
 * chart (templates, CRDs, manifest) inflates to a few MiB.
 */
export interface ReleaseRecordLimits {
  /** Largest `release` field accepted, in characters of the API's base64. */
  maxEncodedChars: number;
  /** Largest inflated JSON accepted, in bytes. */
  maxInflatedBytes: number;
}

export const DEFAULT_RECORD_LIMITS: ReleaseRecordLimits = {
  maxEncodedChars: 4 * 1024 * 1024,
  maxInflatedBytes: 32 * 1024 * 1024,
};

/** A release record that cannot or will not be decoded; the message names the record. */
export class ReleaseRecordError extends Error {
  override name = 'ReleaseRecordError';
  constructor(
    readonly record: string,
    problem: string,
  ) {
    // Nothing helmcrew (or helm) can do with it: the way on is to delete or repair that Secret.
    super(`Helm release record ${record} ${problem}; nothing is done for this release until that Secret is deleted or repaired`);
  }
}

/** `record` ("namespace/secret-name") only names it in errors. */
export function decodeReleasePayload(secretData: string, record = 'release record', limits: ReleaseRecordLimits = DEFAULT_RECORD_LIMITS): HelmReleasePayload {
  if (secretData.length > limits.maxEncodedChars) {
    throw new ReleaseRecordError(record, `is ${mib(secretData.length)} encoded, over the ${mib(limits.maxEncodedChars)} limit`);
  }
  const helmEncoded = Buffer.from(secretData, 'base64').toString('utf8');
  let bytes = Buffer.from(helmEncoded, 'base64');
  // Helm gzips records; the magic bytes say whether this one is.
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      // maxOutputLength stops inflating at the limit instead of allocating what the gzip claims.
      bytes = gunzipSync(bytes, { maxOutputLength: limits.maxInflatedBytes });
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'ERR_BUFFER_TOO_LARGE') throw new ReleaseRecordError(record, `inflates past the ${mib(limits.maxInflatedBytes)} limit`);
      throw new ReleaseRecordError(record, 'is not valid gzip');
    }
  }
  if (bytes.length > limits.maxInflatedBytes) throw new ReleaseRecordError(record, `is larger than the ${mib(limits.maxInflatedBytes)} limit`);
  let payload: unknown;
  try {
    payload = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new ReleaseRecordError(record, 'is not valid JSON');
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) throw new ReleaseRecordError(record, 'is not a release object');
  return payload as HelmReleasePayload;
}

export function encodeReleasePayload(payload: HelmReleasePayload): string {
  const helmEncoded = gzipSync(Buffer.from(JSON.stringify(payload))).toString('base64');
  return Buffer.from(helmEncoded).toString('base64');
}

export { releaseSecretName } from '../release/helm-record-name.js';

function mib(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(bytes < 1024 * 1024 ? 2 : 0)} MiB`;
}
