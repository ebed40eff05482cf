import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/**
 * The registry token protocol (as GHCR, Harbor and Docker Hub speak it) in front of the local
 * distribution registry, which can only do htpasswd itself: `/v2/…` answers 401 with a
 * `Bearer realm=…/token` challenge until the request carries a token from `/token`, which wants
 * HTTP basic auth; then the request is passed to the real registry unchanged.
 */
export class TokenGateway {
  readonly tokenRequests: Array<{ scope: string | null; service: string | null; ok: boolean }> = [];
  /** Requests to /v2/… answered with the challenge (no valid token). */
  challenges = 0;
  /** Requests to /v2/… passed to the registry. */
  passed = 0;
  private readonly tokens = new Set<string>();
  private server: Server | undefined;
  private port = 0;

  constructor(
    private readonly upstream: string,
    private readonly login: { username: string; password: string },
  ) {}

  get url(): string {
    return `oci://127.0.0.1:${this.port}/charts`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${this.port}`);
    if (url.pathname === '/token') return this.token(req, res, url);
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!bearer || !this.tokens.has(bearer)) {
      this.challenges++;
      const name = /^\/v2\/(.+)\/(tags|manifests|blobs)\//.exec(url.pathname)?.[1];
      const scope = name ? `,scope="repository:${name}:pull"` : '';
      res.writeHead(401, {
        'www-authenticate': `Bearer realm="http://127.0.0.1:${this.port}/token",service="gateway"${scope}`,
        'content-type': 'application/json',
      });
      res.end('{"errors":[{"code":"UNAUTHORIZED"}]}');
      return;
    }
    this.passed++;
    const headers = { ...req.headers };
    delete headers.authorization;
    delete headers.host;
    const upstream = request(`${this.upstream}${req.url}`, { method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  }

  private token(req: IncomingMessage, res: ServerResponse, url: URL): void {
    const given = Buffer.from(req.headers.authorization ?? '');
    const expected = Buffer.from(`Basic ${Buffer.from(`${this.login.username}:${this.login.password}`).toString('base64')}`);
    const ok = given.length === expected.length && timingSafeEqual(given, expected);
    this.tokenRequests.push({ scope: url.searchParams.get('scope'), service: url.searchParams.get('service'), ok });
    if (!ok) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"errors":[{"code":"UNAUTHORIZED"}]}');
      return;
    }
    const token = randomBytes(16).toString('hex');
    this.tokens.add(token);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ token, access_token: token, expires_in: 300 }));
  }
}
