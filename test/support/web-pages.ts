import { request as httpRequest, type IncomingMessage } from 'node:http';
import Fastify, { type FastifyInstance } from 'fastify';
import { KubeRest, type KubeRequest } from '../../src/core/kube/rest-client.js';
import type { PageRoutes, WebRequestContext } from '../../src/web/contract.js';
import { WEB_CSS } from '../../src/web/render/layout.js';

/** A KubeRest that counts what it sends: every request and every watch stream the web's parts open. */
export class CountingRest extends KubeRest {
  requests: string[] = [];
  override request<T = unknown>(req: KubeRequest): Promise<T> {
    this.requests.push(`${req.method} ${req.path}`);
    return super.request<T>(req);
  }
  override stream(...args: Parameters<KubeRest['stream']>): Promise<void> {
    this.requests.push(`WATCH ${args[0].path}`);
    return super.stream(...args);
  }
}

/**
 * The pages on a bare fastify, the server's sign-in replaced by a hook: the `x-test-person` header
 * (or a `test-person` cookie) names who is signed in (the real sign-in is src/web/server's). Listens on 127.0.0.1, a free port.
 */
export async function pagesServer(routes: PageRoutes, people: Record<string, WebRequestContext>): Promise<{ app: FastifyInstance; base: string }> {
  const app = Fastify();
  // The stylesheet is the server's to serve; a browser look needs it here.
  app.get('/assets/web.css', async (_request, reply) => reply.type('text/css').send(WEB_CSS));
  app.addHook('onRequest', async (request, reply) => {
    if (request.url === '/assets/web.css') return;
    // A header for fetch; a cookie for a browser.
    const cookie = /(?:^|;\s*)test-person=([a-z]+)/.exec(request.headers.cookie ?? '')?.[1];
    const who = request.headers['x-test-person'] ?? cookie;
    const web = typeof who === 'string' ? people[who] : undefined;
    if (!web) return reply.code(401).send('sign in first');
    request.web = web;
  });
  await app.register(async (scope) => routes(scope));
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, base: address };
}

/** A live stream: everything it received so far, and how to close it. */
export interface OpenStream {
  text(): string;
  close(): void;
  status: number;
}

export function openStream(url: string, person: string): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    let received = '';
    const req = httpRequest(url, { headers: { 'x-test-person': person, accept: 'text/event-stream' } }, (res: IncomingMessage) => {
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (received += chunk));
      res.on('error', () => undefined);
      resolve({ text: () => received, close: () => req.destroy(), status: res.statusCode ?? 0 });
    });
    req.on('error', (error) => (received ? undefined : reject(error)));
    req.end();
  });
}

/** The `part` events of a stream's text, parsed. */
export function parts(text: string): Array<{ id: string; html: string }> {
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('event: part\n'))
    .map((block) => JSON.parse(block.slice(block.indexOf('data: ') + 6)) as { id: string; html: string });
}
