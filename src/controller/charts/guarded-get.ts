import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { decideRepositoryHost, type HostPolicy } from './host-policy.js';
import type { ProxyAccess } from '../../core/release/desired-release.js';
import { proxyRoute } from './proxy-route.js';
import { proxyRefused } from './proxy-access.js';
import { IndexTooLargeError, RepositoryNotAllowedError, RepositoryUnreachableError } from './repository-errors.js';

/** TLS material for a repository: a private CA to trust, a client certificate. PEM. */
export interface RepositoryTls {
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
}

export interface GuardedGetOptions {
  policy: HostPolicy;
  maxBytes: number;
  timeoutMs: number;
  /** The repository as the user wrote it, for messages. */
  repository: string;
  maxRedirects?: number;
  /** Extra request headers. `authorization` is sent only to the first URL's origin, never across a redirect to another (nor is the client certificate). */
  headers?: Record<string, string>;
  tls?: RepositoryTls;
  method?: 'GET' | 'HEAD';
  /** proxySecretRef: every hop goes through it, the host policy still applied to the target (proxy-route.ts). */
  proxy?: ProxyAccess;
}

/** What came back: the caller decides what a status means (and never puts it in a message). */
export interface GuardedResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** Host name of a URL without IPv6 brackets. */
export function urlHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/** Resolves `host` (every address) and applies the policy; throws RepositoryNotAllowedError. */
export async function checkRepositoryHost(policy: HostPolicy, repository: string, host: string): Promise<LookupAddress[]> {
  const addresses: LookupAddress[] = isIP(host)
    ? [{ address: host, family: isIP(host) }]
    : await new Promise<LookupAddress[]>((resolve, reject) =>
        dnsLookup(host, { all: true }, (error, found) => (error ? reject(new RepositoryUnreachableError(repository)) : resolve(found))),
      );
  const decision = decideRepositoryHost(policy, host, addresses.map((a) => a.address));
  if (!decision.allowed) throw new RepositoryNotAllowedError(repository, decision.why);
  return addresses;
}

/** Every address of `host`, unchecked (proxy-route.ts checks them). */
function lookupAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => dnsLookup(host, { all: true }, (error, found) => (error ? reject(error) : resolve(found))));
}

/** GET that wants a 200 and its body; anything else is the one generic failure. */
export async function guardedGet(url: string, opts: GuardedGetOptions): Promise<Buffer> {
  const res = await guardedRequest(url, opts);
  if (res.status !== 200) throw new RepositoryUnreachableError(opts.repository);
  return res.body;
}

/**
 * A request with the host policy applied to the addresses actually connected to (the lookup is
 * ours, so a name cannot resolve to something else between check and connect), a byte limit that
 * aborts the download, an overall deadline and a few re-checked redirects.
 */
export async function guardedRequest(url: string, opts: GuardedGetOptions): Promise<GuardedResponse> {
  let current = new URL(url);
  const origin = current.origin;
  for (let hop = 0; hop <= (opts.maxRedirects ?? 3); hop++) {
    const result = await requestOnce(current, opts, current.origin === origin);
    if (result.kind === 'response') return result.response;
    current = new URL(result.location, current);
  }
  throw new RepositoryUnreachableError(opts.repository);
}

type Hop = { kind: 'response'; response: GuardedResponse } | { kind: 'redirect'; location: string };

/** Request headers for one hop: credentials stay with the origin they were given for. */
function hopHeaders(opts: GuardedGetOptions, sameOrigin: boolean): Record<string, string> {
  const headers: Record<string, string> = { accept: 'application/yaml, application/json;q=0.9, */*;q=0.1', ...opts.headers };
  if (!sameOrigin) delete headers.authorization;
  return headers;
}

async function requestOnce(url: URL, opts: GuardedGetOptions, sameOrigin: boolean): Promise<Hop> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new RepositoryNotAllowedError(opts.repository, `${url.protocol} is not http or https`);
  const host = urlHost(url);
  // Node connects to an address literal without calling `lookup`: check it here.
  if (isIP(host) && !opts.proxy) await checkRepositoryHost(opts.policy, opts.repository, host);
  const tls = url.protocol === 'https:' && opts.tls ? { ca: opts.tls.ca, ...(sameOrigin ? { cert: opts.tls.cert, key: opts.tls.key } : {}) } : {};
  const checked = (name: string) => checkRepositoryHost(opts.policy, opts.repository, name);
  const viaProxy = opts.proxy
    ? await proxyRoute({ url, host, policy: opts.policy, repository: opts.repository, proxy: opts.proxy, resolve: lookupAll, tls, timeoutMs: opts.timeoutMs })
    : undefined;
  return new Promise<Hop>((resolve, reject) => {
    let settled = false;
    const finish = (error: Error | undefined, hop?: Hop) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      if (error) {
        req.destroy();
        reject(error);
      } else resolve(hop!);
    };
    const lookup = (_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
      checked(host).then(
        (addresses) => (options.all ? callback(null, addresses) : callback(null, addresses[0]!.address, addresses[0]!.family)),
        (error: Error) => callback(error),
      );
    };
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    // The client certificate, like the password, only for the origin it was given for; the CA for every hop.
    // agent: false: a fresh connection, so every request passes the lookup (and its policy) again.
    const options = { method: opts.method ?? 'GET', agent: false as const, lookup: lookup as never, headers: hopHeaders(opts, sameOrigin), ...tls };
    const onResponse = (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      // The proxy's own answer about its credentials (plain http targets; CONNECT's is in proxy-route.ts).
      if (opts.proxy && status === 407) return finish(proxyRefused(opts.proxy));
      if (status >= 300 && status < 400 && status !== 304 && res.headers.location) {
        res.resume();
        return finish(undefined, { kind: 'redirect', location: res.headers.location });
      }
      if (Number(res.headers['content-length'] ?? 0) > opts.maxBytes && opts.method !== 'HEAD') return finish(new IndexTooLargeError(opts.repository, opts.maxBytes));
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > opts.maxBytes) return finish(new IndexTooLargeError(opts.repository, opts.maxBytes));
        chunks.push(chunk);
      });
      res.on('end', () => finish(undefined, { kind: 'response', response: { status, headers: res.headers, body: Buffer.concat(chunks) } }));
      res.on('error', () => finish(new RepositoryUnreachableError(opts.repository)));
    };
    const req = viaProxy
      ? url.protocol === 'https:'
        ? // A tunnelled socket of its own: no agent, so Node takes createConnection.
          httpsRequest(url, { method: options.method, headers: options.headers, ...viaProxy }, onResponse)
        : httpRequest({ ...viaProxy, method: options.method, agent: false, headers: { ...options.headers, ...viaProxy.headers } }, onResponse)
      : send(url, options, onResponse);
    // Every socket-level failure (TLS ones included) becomes the one generic message; the policy refusal stays itself.
    req.on('error', (error) => finish(error instanceof RepositoryNotAllowedError ? error : new RepositoryUnreachableError(opts.repository)));
    const deadline = setTimeout(() => finish(new RepositoryUnreachableError(opts.repository)), opts.timeoutMs);
    req.end();
  });
}
