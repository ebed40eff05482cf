import { inspect } from 'node:util';
import type { ProxyAccess } from '../../core/release/desired-release.js';
import { ChartNotFoundError } from './repository-errors.js';

/**
 * A proxy for repository and Git fetches (`proxySecretRef`, Flux's shape): a Secret with
 * `address` (http://host:port) and optionally `username` + `password`. Pure: the Secret's data in,
 * the proxy out; never shown by JSON or inspect.
 */
export type { ProxyAccess };

/** A proxy Secret that cannot be used: reported as ChartPullFailed, like wrong credentials. */
export class ProxySecretError extends ChartNotFoundError {
  override name = 'ProxySecretError';
}

/** `data` as the API gives it (base64 values). */
export function proxyAccessFrom(data: Record<string, string>, secret: string, field: string): ProxyAccess {
  const text = (key: string) => (data[key] !== undefined ? Buffer.from(data[key], 'base64').toString('utf8').trim() : undefined);
  const where = `Secret ${secret} (${field}.proxySecretRef)`;
  const address = text('address');
  if (!address) throw new ProxySecretError(`${where} has no address`);
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    throw new ProxySecretError(`${where}: address is not a URL (http://host:port)`);
  }
  if (url.protocol !== 'http:') throw new ProxySecretError(`${where}: address must be an http:// proxy (https targets are tunnelled with CONNECT)`);
  if (url.username || url.password) throw new ProxySecretError(`${where}: give the proxy's user in username and password, not in the address`);
  if (url.pathname !== '/' || url.search) throw new ProxySecretError(`${where}: address is host and port only (http://host:port)`);
  const [username, password] = [text('username'), text('password')];
  if (!!username !== !!password) throw new ProxySecretError(`${where} needs both username and password, or neither`);
  const proxy: ProxyAccess = { secret, url, ...(username && password ? { basic: { username, password } } : {}) };
  const shown = () => `[proxy ${url.host} via Secret ${secret}]`;
  Object.defineProperty(proxy, 'toJSON', { value: shown, enumerable: false });
  Object.defineProperty(proxy, inspect.custom, { value: shown, enumerable: false });
  return proxy;
}

/** The proxy answered 407 (or 401 to CONNECT): its credentials (or their absence) are wrong. */
export function proxyRefused(proxy: ProxyAccess, status = 407): ProxySecretError {
  return new ProxySecretError(`the proxy ${proxy.url.host} refused ${proxy.basic ? 'the credentials in' : 'to serve without credentials: add username and password to'} Secret ${proxy.secret} (${status})`);
}

/** The Proxy-Authorization header value, when the proxy has a user. */
export function proxyAuthorization(proxy: ProxyAccess): string | undefined {
  return proxy.basic ? `Basic ${Buffer.from(`${proxy.basic.username}:${proxy.basic.password}`).toString('base64')}` : undefined;
}

/** The proxy's password (and its Basic form), for redaction. */
export function proxySecrets(proxy: ProxyAccess | undefined): string[] {
  if (!proxy?.basic) return [];
  return [proxy.basic.password, Buffer.from(`${proxy.basic.username}:${proxy.basic.password}`).toString('base64')];
}
