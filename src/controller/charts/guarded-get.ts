import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { decideRepositoryHost, type HostPolicy } from './host-policy.js';
import { IndexTooLargeError, RepositoryNotAllowedError, RepositoryUnreachableError } from './repository-errors.js';

export interface GuardedGetOptions {
  policy: HostPolicy;
  maxBytes: number;
  timeoutMs: number;
  /** The repository as the user wrote it, for messages. */
  repository: string;
  maxRedirects?: number;
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

/**
 * GET with the host policy applied to the addresses actually connected to (the lookup is ours,
 * so a name cannot resolve to something else between check and connect), a byte limit that
 * aborts the download, an overall deadline and a few re-checked redirects.
 */
export async function guardedGet(url: string, opts: GuardedGetOptions): Promise<Buffer> {
  let current = new URL(url);
  for (let hop = 0; hop <= (opts.maxRedirects ?? 3); hop++) {
    const result = await getOnce(current, opts);
    if (result.kind === 'body') return result.body;
    current = new URL(result.location, current);
  }
  throw new RepositoryUnreachableError(opts.repository);
}

type Hop = { kind: 'body'; body: Buffer } | { kind: 'redirect'; location: string };

async function getOnce(url: URL, opts: GuardedGetOptions): Promise<Hop> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new RepositoryNotAllowedError(opts.repository, `${url.protocol} is not http or https`);
  const host = urlHost(url);
  // Node connects to an address literal without calling `lookup`: check it here.
  if (isIP(host)) await checkRepositoryHost(opts.policy, opts.repository, host);
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
      checkRepositoryHost(opts.policy, opts.repository, host).then(
        (addresses) => (options.all ? callback(null, addresses) : callback(null, addresses[0]!.address, addresses[0]!.family)),
        (error: Error) => callback(error),
      );
    };
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    // agent: false: a fresh connection, so every request passes the lookup (and its policy) again.
    const req = send(url, { method: 'GET', agent: false, lookup: lookup as never, headers: { accept: 'application/yaml, application/json;q=0.9, */*;q=0.1' } }, (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400 && res.headers.location) {
        res.resume();
        return finish(undefined, { kind: 'redirect', location: res.headers.location });
      }
      if (status !== 200) {
        res.resume();
        // Not even the status code: it would tell an HTTP service from a closed port.
        return finish(new RepositoryUnreachableError(opts.repository));
      }
      if (Number(res.headers['content-length'] ?? 0) > opts.maxBytes) return finish(new IndexTooLargeError(opts.repository, opts.maxBytes));
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > opts.maxBytes) return finish(new IndexTooLargeError(opts.repository, opts.maxBytes));
        chunks.push(chunk);
      });
      res.on('end', () => finish(undefined, { kind: 'body', body: Buffer.concat(chunks) }));
      res.on('error', () => finish(new RepositoryUnreachableError(opts.repository)));
    });
    // Every socket-level failure becomes the one generic message; the policy refusal stays itself.
    req.on('error', (error) => finish(error instanceof RepositoryNotAllowedError ? error : new RepositoryUnreachableError(opts.repository)));
    const deadline = setTimeout(() => finish(new RepositoryUnreachableError(opts.repository)), opts.timeoutMs);
    req.end();
  });
}
