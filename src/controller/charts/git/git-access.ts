import { createHash } from 'node:crypto';
import { inspect } from 'node:util';
import { ChartAccessError } from '../chart-access.js';
import { proxyAccessFrom, proxySecrets, type ProxyAccess } from '../proxy-access.js';

/**
 * How to get into a Git repository: from the Secret `spec.chart.git.secretRef` names (read as the
 * HelmRelease's identity by reconcile/chart-access-reader.ts). Pure; JSON and inspect show no content.
 */
export interface GitAccess {
  /** "namespace/name" of the Secret, for messages. */
  secret?: string;
  /** https://: HTTP basic auth (a token goes in password). */
  basic?: { username: string; password: string };
  /** ssh://: a private key and the host keys to trust. */
  ssh?: { identity: string; knownHosts: string };
  /** spec.chart.git.proxySecretRef: https:// fetches go through it (git's http.proxy, in a config file of the run's own). */
  proxy?: ProxyAccess;
  /** Tells one set of credentials from another in cache keys; a hash, never the credentials. */
  cacheKey: string;
}

export const GIT_ANONYMOUS: GitAccess = { cacheKey: 'anonymous' };

/** Pure: the Secret's data (base64 as the API gives it) as a GitAccess for `url`. */
export function gitAccessFrom(opts: {
  url: string;
  namespace: string;
  secretName?: string;
  secretData?: Record<string, string>;
  proxySecretName?: string;
  proxyData?: Record<string, string>;
}): GitAccess {
  const access = credentialsFrom(opts);
  if (!opts.proxySecretName) return access;
  if (opts.url.startsWith('ssh://')) throw new ChartAccessError(`${opts.url} is an ssh:// repository: spec.chart.git.proxySecretRef is for https:// (an HTTP proxy)`);
  const proxy = proxyAccessFrom(opts.proxyData ?? {}, `${opts.namespace}/${opts.proxySecretName}`, 'spec.chart.git');
  const cacheKey = createHash('sha256').update(access.cacheKey).update('\0proxy\0').update(JSON.stringify(opts.proxyData ?? {})).digest('hex').slice(0, 32);
  return opaque({ ...access, proxy, cacheKey });
}

function credentialsFrom(opts: { url: string; namespace: string; secretName?: string; secretData?: Record<string, string> }): GitAccess {
  const ssh = opts.url.startsWith('ssh://');
  if (!opts.secretName) {
    // Host keys are always checked: without known_hosts there is nothing to check them against.
    if (ssh) throw new ChartAccessError(`${opts.url} is an ssh:// repository: spec.chart.git.secretRef must name a Secret with identity and known_hosts`);
    return GIT_ANONYMOUS;
  }
  const secret = `${opts.namespace}/${opts.secretName}`;
  const where = `Secret ${secret} (spec.chart.git.secretRef)`;
  const data = Object.fromEntries(Object.entries(opts.secretData ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
  const access: GitAccess = { secret, cacheKey: '' };
  if (ssh) {
    if (!data.identity) throw new ChartAccessError(`${where} needs identity (an SSH private key) for ${opts.url}`);
    if (!data.known_hosts?.trim()) throw new ChartAccessError(`${where} needs known_hosts for ${opts.url}: host keys are always checked`);
    // ssh refuses a key file without its final newline ("invalid format").
    access.ssh = { identity: data.identity.endsWith('\n') ? data.identity : `${data.identity}\n`, knownHosts: data.known_hosts };
  } else {
    if (!data.password) throw new ChartAccessError(`${where} needs password (or a token in password), and usually username, for ${opts.url}`);
    access.basic = { username: data.username || 'git', password: data.password };
  }
  access.cacheKey = createHash('sha256').update(secret).update('\0').update(JSON.stringify(access.basic ?? access.ssh)).digest('hex').slice(0, 32);
  return opaque(access);
}

function opaque(access: GitAccess): GitAccess {
  const shown = () => `[git access${access.secret ? ` via Secret ${access.secret}` : ''}${access.proxy ? ` through proxy ${access.proxy.url.host}` : ''}]`;
  Object.defineProperty(access, 'toJSON', { value: shown, enumerable: false });
  Object.defineProperty(access, inspect.custom, { value: shown, enumerable: false });
  return access;
}

/** Every secret string of `access`, for redaction. */
export function gitAccessSecrets(access: GitAccess): string[] {
  const out: string[] = [];
  if (access.basic) out.push(access.basic.password, Buffer.from(`${access.basic.username}:${access.basic.password}`).toString('base64'));
  if (access.ssh) out.push(access.ssh.identity.trim());
  out.push(...proxySecrets(access.proxy));
  return out;
}

/** The URL as shown in messages: never a user-info part (the CRD refuses a password there; a user name is dropped too). */
export function displayUrl(url: string): string {
  return url.replace(/^([a-z]+:\/\/)[^/@]*@/i, '$1');
}
