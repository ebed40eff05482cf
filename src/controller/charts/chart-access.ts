import { createHash } from 'node:crypto';
import type { ChartRef } from '../../api/helmrelease.js';
import { inspect } from 'node:util';
import type { ChartAccess } from '../../core/release/desired-release.js';
import type { RepositoryTls } from './guarded-get.js';
import { proxyAccessFrom, proxySecrets } from './proxy-access.js';
import { ChartNotFoundError, RepositoryUnreachableError } from './repository-errors.js';

/**
 * Credentials and TLS material for a chart source (ChartAccess in core/release/desired-release.ts),
 * parsed from the Secrets' data here; read by reconcile/chart-access-reader.ts.
 */
export type { ChartAccess };

/** Wrong, missing or unreadable credentials: reported as ChartPullFailed, retried with backoff. */
export class ChartAccessError extends ChartNotFoundError {
  override name = 'ChartAccessError';
}

export const ANONYMOUS: ChartAccess = { insecure: false, cacheKey: 'anonymous' };

export function needsSecrets(chart: ChartRef): boolean {
  return !!chart.secretRef || !!chart.certSecretRef || !!chart.proxySecretRef;
}

/** Pure: the data of the two Secrets (base64 as the API gives it) as a ChartAccess. */
export function chartAccessFrom(opts: {
  chart: ChartRef;
  namespace: string;
  secretData?: Record<string, string>;
  certData?: Record<string, string>;
  proxyData?: Record<string, string>;
  /** Where the Secrets are named, for messages: `spec.chart` (default) or `spec.chart.git.dependencies[0]`. */
  field?: string;
}): ChartAccess {
  const { chart, namespace } = opts;
  const field = opts.field ?? 'spec.chart';
  const access: ChartAccess = { insecure: chart.insecure === true, cacheKey: '' };
  const hash = createHash('sha256').update(chart.insecure ? 'plain' : 'tls');
  if (chart.secretRef) {
    access.secret = `${namespace}/${chart.secretRef.name}`;
    const data = decoded(opts.secretData);
    const where = `Secret ${access.secret} (${field}.secretRef)`;
    if (data.username !== undefined || data.password !== undefined) {
      if (!data.username || !data.password) throw new ChartAccessError(`${where} needs both username and password`);
      access.basic = { username: data.username, password: data.password };
    } else if (data['.dockerconfigjson'] !== undefined) {
      if (!chart.repository?.startsWith('oci://')) throw new ChartAccessError(`${where}: .dockerconfigjson is for oci:// registries; give username and password`);
      access.registryLogins = registryLogins(data['.dockerconfigjson'], where);
    } else {
      throw new ChartAccessError(`${where} has neither username + password nor .dockerconfigjson`);
    }
    hash.update(access.secret).update('\0').update(JSON.stringify(data));
  }
  if (chart.certSecretRef) {
    access.certSecret = `${namespace}/${chart.certSecretRef.name}`;
    const raw = opts.certData ?? {};
    const where = `Secret ${access.certSecret} (${field}.certSecretRef)`;
    const pem = (key: string) => (raw[key] !== undefined ? Buffer.from(raw[key], 'base64') : undefined);
    const tls: RepositoryTls = { ca: pem('ca.crt'), cert: pem('tls.crt'), key: pem('tls.key') };
    if (!tls.ca && !tls.cert) throw new ChartAccessError(`${where} has neither ca.crt nor tls.crt + tls.key`);
    if (!!tls.cert !== !!tls.key) throw new ChartAccessError(`${where} needs both tls.crt and tls.key for a client certificate`);
    access.tls = tls;
    hash.update(access.certSecret).update('\0').update(JSON.stringify(raw));
  }
  const proxyRef = chart.proxySecretRef;
  if (proxyRef) {
    access.proxy = proxyAccessFrom(opts.proxyData ?? {}, `${namespace}/${proxyRef.name}`, field);
    // Another proxy is another answer's path, not another answer: still its own cache entry, as credentials are.
    hash.update('proxy\0').update(JSON.stringify(opts.proxyData ?? {}));
  }
  access.cacheKey = chart.secretRef || chart.certSecretRef || proxyRef ? hash.digest('hex').slice(0, 32) : `anonymous${chart.insecure ? '-plain' : ''}`;
  return opaque(access);
}

/** Shown as a placeholder by JSON.stringify and util.inspect, so a stray log call prints no credential. */
function opaque(access: ChartAccess): ChartAccess {
  const shown = () => `[chart access${access.secret ? ` via Secret ${access.secret}` : ''}]`;
  Object.defineProperty(access, 'toJSON', { value: shown, enumerable: false });
  Object.defineProperty(access, inspect.custom, { value: shown, enumerable: false });
  return access;
}

/** The user and password for `host` (host:port as in the repository URL), from either form. */
export function credentialsFor(access: ChartAccess, host: string): { username: string; password: string } | undefined {
  return access.basic ?? access.registryLogins?.get(host.toLowerCase());
}

function decoded(data: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
}

/**
 * `.dockerconfigjson`'s `auths` by registry host. Keys may be written as a URL
 * (`https://host/v1/`); only the host:port counts. credsStore and credHelpers are ignored: they
 * would make helm run a credential-helper program of the controller's machine.
 */
function registryLogins(text: string, where: string): Map<string, { username: string; password: string }> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ChartAccessError(`${where}: .dockerconfigjson is not JSON`);
  }
  const auths = (parsed as { auths?: unknown } | null)?.auths;
  if (!auths || typeof auths !== 'object') throw new ChartAccessError(`${where}: .dockerconfigjson has no auths`);
  const logins = new Map<string, { username: string; password: string }>();
  for (const [key, entry] of Object.entries(auths as Record<string, { auth?: unknown; username?: unknown; password?: unknown }>)) {
    const host = key.replace(/^[a-z]+:\/\//i, '').split('/')[0]!.toLowerCase();
    let username = typeof entry?.username === 'string' ? entry.username : undefined;
    let password = typeof entry?.password === 'string' ? entry.password : undefined;
    if ((!username || !password) && typeof entry?.auth === 'string') {
      const plain = Buffer.from(entry.auth, 'base64').toString('utf8');
      const colon = plain.indexOf(':');
      if (colon > 0) [username, password] = [plain.slice(0, colon), plain.slice(colon + 1)];
    }
    if (host && username && password) logins.set(host, { username, password });
  }
  if (logins.size === 0) throw new ChartAccessError(`${where}: .dockerconfigjson has no usable auths entry (auth, or username and password)`);
  return logins;
}

/** Every secret string of `access`, for redaction from helm's output. */
export function accessSecrets(access: ChartAccess): string[] {
  const out: string[] = [];
  if (access.basic) out.push(access.basic.password, Buffer.from(`${access.basic.username}:${access.basic.password}`).toString('base64'));
  for (const login of access.registryLogins?.values() ?? []) out.push(login.password, Buffer.from(`${login.username}:${login.password}`).toString('base64'));
  if (access.tls?.key) out.push(access.tls.key.toString('utf8'));
  out.push(...proxySecrets(access.proxy));
  return out;
}

/**
 * The message of every refusal: the repository and the Secret, never what was sent. Without a
 * Secret it is the one generic failure, so a HelmRelease cannot tell a server that wants
 * credentials from a closed port.
 */
export function accessRefused(repository: string, access: ChartAccess): ChartNotFoundError {
  if (!access.secret) return new RepositoryUnreachableError(repository);
  return new ChartAccessError(`${repository} refused the credentials in Secret ${access.secret} (spec.chart.secretRef)`);
}
