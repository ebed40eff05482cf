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

export function decodeReleasePayload(secretData: string): HelmReleasePayload {
  const helmEncoded = Buffer.from(secretData, 'base64').toString('utf8');
  let bytes = Buffer.from(helmEncoded, 'base64');
  // Helm gzips records; the magic bytes say whether this one is.
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = gunzipSync(bytes);
  return JSON.parse(bytes.toString('utf8')) as HelmReleasePayload;
}

export function encodeReleasePayload(payload: HelmReleasePayload): string {
  const helmEncoded = gzipSync(Buffer.from(JSON.stringify(payload))).toString('base64');
  return Buffer.from(helmEncoded).toString('base64');
}

export function releaseSecretName(releaseName: string, revision: number): string {
  return `sh.helm.release.v1.${releaseName}.v${revision}`;
}
