import { request as httpRequest, type RequestOptions } from 'node:http';
import { isIP } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { ProxyAccess } from '../../core/release/desired-release.js';
import { decideRepositoryHost, type HostPolicy } from './host-policy.js';
import { proxyAuthorization, proxyRefused } from './proxy-access.js';
import { RepositoryNotAllowedError, RepositoryUnreachableError } from './repository-errors.js';
/** TLS material for the tunnelled connection (guarded-get's RepositoryTls, as sent on this hop). */
type RepositoryTls = { ca?: Buffer; cert?: Buffer; key?: Buffer };

/**
 * How one request goes through a source's proxy without going around the host policy: the target
 * is resolved and checked here, as without a proxy, and the proxy is asked for that checked address
 * (CONNECT 10.1.2.3:443 for https, the absolute URI http://10.1.2.3:8080/… for http) — never for a
 * name it would resolve itself. The proxy's own address passes the policy too.
 */
export interface ProxyRouteInput {
  url: URL;
  host: string;
  policy: HostPolicy;
  repository: string;
  proxy: ProxyAccess;
  resolve: (host: string) => Promise<Array<{ address: string; family: number }>>;
  tls: RepositoryTls;
  timeoutMs: number;
}

/** Request options to merge (https: a tunnelled TLS socket; http: the proxy as the server). */
export async function proxyRoute(input: ProxyRouteInput): Promise<RequestOptions> {
  const { url, proxy, repository } = input;
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const target = await allowed(input, input.host, '');
  const proxyHost = proxy.url.hostname.replace(/^\[|\]$/g, '');
  const via = await allowed(input, proxyHost, `its proxy ${proxy.url.host} (Secret ${proxy.secret}): `);
  const proxyPort = Number(proxy.url.port || 80);
  const authority = `${isIP(target) === 6 ? `[${target}]` : target}:${port}`;
  const auth = proxyAuthorization(proxy);
  if (url.protocol === 'http:') {
    return { host: via, port: proxyPort, path: `http://${authority}${url.pathname}${url.search}`, headers: { host: url.host, ...(auth ? { 'proxy-authorization': auth } : {}) } };
  }
  const socket = await new Promise<import('node:net').Socket>((resolve, reject) => {
    const req = httpRequest({ host: via, port: proxyPort, method: 'CONNECT', path: authority, headers: { host: authority, ...(auth ? { 'proxy-authorization': auth } : {}) } });
    const timer = setTimeout(() => req.destroy(new RepositoryUnreachableError(repository)), input.timeoutMs);
    req.on('connect', (res, connected) => {
      clearTimeout(timer);
      if (res.statusCode === 200) return resolve(connected);
      connected.destroy();
      // Before the tunnel only the proxy speaks: 407 (or 401, which tinyproxy 1.11 sends) is about its
      // own credentials, worth saying; anything else is the one generic failure.
      if (res.statusCode === 407 || res.statusCode === 401) return reject(proxyRefused(proxy, res.statusCode));
      reject(new RepositoryUnreachableError(repository));
    });
    req.on('error', () => {
      clearTimeout(timer);
      reject(new RepositoryUnreachableError(repository));
    });
    req.end();
  });
  return { createConnection: () => tlsConnect({ socket, servername: isIP(input.host) ? undefined : input.host, ...input.tls }) };
}

/** The first address of `host` once every address passes the policy. */
async function allowed(input: ProxyRouteInput, host: string, prefix: string): Promise<string> {
  let addresses: Array<{ address: string }>;
  try {
    addresses = isIP(host) ? [{ address: host }] : await input.resolve(host);
  } catch {
    throw new RepositoryUnreachableError(input.repository);
  }
  const decision = decideRepositoryHost(input.policy, host, addresses.map((a) => a.address));
  if (!decision.allowed) throw new RepositoryNotAllowedError(input.repository, `${prefix}${decision.why}`);
  return addresses[0]!.address;
}
