// A counting proxy in front of the local OCI registry, on 127.0.0.1: every request the controller
// makes is logged (method, path, status, time) and passed on. With `bearer`, it asks for a token as
// GHCR, Harbor or Docker Hub do (`401` + `WWW-Authenticate: Bearer realm=…/token`), serves the
// token itself and refuses it after `tokenSeconds`, so the bench counts token requests too.
import { randomBytes } from 'node:crypto';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RegistryRequest } from './registry-counts.js';

export interface RegistryProxy {
  /** host:port of the proxy, as an image repository names it. */
  host: string;
  /** Every request so far, in order. */
  requests: RegistryRequest[];
  stop(): Promise<void>;
}

export async function startRegistryProxy(opts: { upstream: string; bearer: boolean; tokenSeconds: number }): Promise<RegistryProxy> {
  const upstream = new URL(opts.upstream);
  const requests: RegistryRequest[] = [];
  const tokens = new Map<string, number>();
  let host = '';

  const answer = (req: IncomingMessage, res: ServerResponse, at: number, status: number, headers: Record<string, string>, body = '') => {
    requests.push({ method: req.method ?? 'GET', url: req.url ?? '/', status, at });
    res.writeHead(status, headers).end(body);
  };

  const server = createServer((req, res) => {
    const at = Date.now();
    const url = req.url ?? '/';
    if (opts.bearer && url.split('?')[0] === '/token') {
      const token = randomBytes(12).toString('hex');
      tokens.set(token, at + opts.tokenSeconds * 1000);
      answer(req, res, at, 200, { 'content-type': 'application/json' }, JSON.stringify({ token, expires_in: opts.tokenSeconds }));
      return;
    }
    if (opts.bearer) {
      const given = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
      const until = given ? tokens.get(given) : undefined;
      if (until === undefined || until < at) {
        const name = /^\/v2\/(.+)\/(tags|manifests)\//.exec(url)?.[1];
        const scope = name ? `,scope="repository:${name}:pull"` : '';
        answer(
          req,
          res,
          at,
          401,
          { 'www-authenticate': `Bearer realm="http://${host}/token",service="bench"${scope}`, 'content-type': 'application/json' },
          '{"errors":[]}',
        );
        return;
      }
    }
    // The bench's token means nothing to the registry behind it; the Host is the upstream's.
    const headers = { ...req.headers };
    delete headers.authorization;
    delete headers.host;
    const forward = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: url, headers }, (up) => {
      requests.push({ method: req.method ?? 'GET', url, status: up.statusCode ?? 0, at });
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    forward.on('error', () => answer(req, res, at, 502, {}, 'upstream failed'));
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    host,
    requests,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
