import type { ChartAccess } from '../../core/release/desired-release.js';
import { credentialsFor } from '../charts/chart-access.js';

/**
 * Pure: the files a `helm pull oci://…` needs for `access`: a registry config (Docker's
 * config.json format, `auths` only: no credsStore or credHelpers, which would run a program) with
 * the login for the chart's registry host, and the TLS material. Written by withPrivateFiles.
 */
export function registryFiles(ociRef: string, access: ChartAccess | undefined): Record<string, string | Buffer> {
  const host = new URL(ociRef.replace(/^oci:/, 'http:')).host.toLowerCase();
  const login = access ? credentialsFor(access, host) : undefined;
  const auths = login ? { [host]: { auth: Buffer.from(`${login.username}:${login.password}`).toString('base64') } } : {};
  const files: Record<string, string | Buffer> = { 'registry.json': JSON.stringify({ auths }) };
  if (access?.tls?.ca) files['ca.crt'] = access.tls.ca;
  if (access?.tls?.cert && access.tls.key) {
    files['tls.crt'] = access.tls.cert;
    files['tls.key'] = access.tls.key;
  }
  return files;
}
