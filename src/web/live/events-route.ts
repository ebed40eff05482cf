import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Proposal } from '../../core/proposals/proposal.js';
import type { Logger } from '../../core/log.js';
import type { PagesDeps } from '../pages/deps.js';
import { concerns, liveParts, parseLivePage, type LivePage } from './live-parts.js';

/** How long changes are gathered before a page's parts are rendered again (a burst of status writes is one update). */
const COALESCE_MS = 200;
const HEARTBEAT_MS = 25_000;

/**
 * GET /events?page=fleet|release|banner[&release=ns/name][&filters]: a server-sent event stream
 * of the parts of one page that changed (`event: part`, data `{id, html}`). Every stream hears of
 * changes from the one shared watch and renders from its memory for its own viewer: an open page
 * adds no API server request per change. Only the own cluster is followed (a fleet's other
 * clusters are read when the page loads).
 */
export function registerEventsRoute(app: FastifyInstance, deps: PagesDeps, log: Logger, opts: { maxStreams?: number } = {}): void {
  const streams = new Set<NodeJS.WritableStream & { end(): void }>();
  const maxStreams = opts.maxStreams ?? 1000;
  app.addHook('onClose', async () => {
    for (const stream of streams) stream.end();
  });
  app.get('/events', async (request: FastifyRequest, reply: FastifyReply) => {
    const web = request.web;
    if (!web) return reply.code(401).type('text/plain').send('sign in first');
    const parsed = parseLivePage(request.query as Record<string, unknown>);
    if (!parsed.ok) return reply.code(400).type('text/plain').send(parsed.message);
    if (streams.size >= maxStreams) return reply.code(503).header('retry-after', '30').type('text/plain').send('too many live pages open; reload later');
    const page: LivePage = parsed.page;
    const now = () => (deps.now ?? (() => new Date()))();
    // Proposals live in Redis, not in the watch: read once when the page connects.
    const proposals: Proposal[] = deps.own.proposals ? await deps.own.proposals.listLive(now().getTime()).catch(() => []) : [];
    const viewer = { subject: web.principal.subject, teams: web.teams };
    const cluster = deps.fleet?.own;

    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
      connection: 'keep-alive',
    });
    raw.write('retry: 5000\n\n');
    streams.add(raw);

    const sent = new Map<string, string>();
    const render = () => {
      const releases = deps.watch.releases();
      const freezes = deps.watch.freezes();
      if (!releases || !freezes) return; // not listed yet (or relisting after a failure): the next change renders
      let parts: Record<string, string>;
      try {
        parts = liveParts(page, { releases, freezes, proposals, ...(cluster ? { cluster } : {}) }, viewer, now());
      } catch (error) {
        log.warn({ err: error }, 'live page: could not render its parts');
        return;
      }
      for (const [id, html] of Object.entries(parts)) {
        // Sent on connect (a change may have come between the page's read and now), then only what changed.
        if (sent.get(id) === html) continue;
        sent.set(id, html);
        raw.write(`event: part\ndata: ${JSON.stringify({ id, html })}\n\n`);
      }
    };
    render();
    let pending: NodeJS.Timeout | undefined;
    const unsubscribe = deps.watch.subscribe((change) => {
      if (!concerns(page, change) || pending) return;
      pending = setTimeout(() => {
        pending = undefined;
        render();
      }, COALESCE_MS);
    });
    const heartbeat = setInterval(() => raw.write(': ping\n\n'), HEARTBEAT_MS);
    heartbeat.unref();
    const close = () => {
      unsubscribe();
      clearInterval(heartbeat);
      if (pending) clearTimeout(pending);
      pending = undefined;
    };
    raw.on('close', () => {
      streams.delete(raw);
      close();
    });
  });
}
