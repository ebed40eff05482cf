import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Proposal } from '../../core/proposals/proposal.js';
import type { Logger } from '../../core/log.js';
import type { PagesDeps } from '../pages/deps.js';
import { keptUntil, KeptRenders } from '../pages/kept-renders.js';
import { concerns, liveParts, livePartsKey, parseLivePage, partFrame, type LivePage } from './live-parts.js';
import { followOtherClusters, RemoteFollowers } from './remote-parts.js';
import { heldTimeline, timelineKeys } from './watched-timeline.js';

/** How long changes are gathered before a page's parts are rendered again (a burst of status writes is one update). */
const COALESCE_MS = 200;
const HEARTBEAT_MS = 25_000;

/**
 * GET /events?page=fleet|release|banner[&release=ns/name][&filters]: a server-sent event stream
 * of the parts of one page that changed (`event: part`, data `{id, html}`). Every stream hears of
 * changes from the shared watches (releases and Freezes; a release page also helm's records and
 * the Events about it) and takes its parts from memory: an open page adds no API server request
 * per change. Streams showing the same page to the same viewer share one render per change (and
 * its frames: a stream keeps only which it sent). A fleet page's other clusters are followed, when
 * `remoteChanges` gives their change signal, through one RemoteFollower per cluster (remote-parts.ts).
 */
export function registerEventsRoute(app: FastifyInstance, deps: PagesDeps, log: Logger, opts: { maxStreams?: number } = {}): void {
  const streams = new Set<NodeJS.WritableStream & { end(): void }>();
  const maxStreams = opts.maxStreams ?? 1000;
  // Parts' frames by livePartsKey, each valid for one revision of the watches and until a Freeze starts or stops holding.
  const renders = new KeptRenders<Array<[string, string]>>(64);
  const remote = deps.fleet && deps.remoteChanges ? new RemoteFollowers(deps.fleet, deps.remoteChanges, log) : undefined;
  const revision = () => deps.watch.revision + (deps.timeline ? deps.timeline.records.revision + deps.timeline.events.revision : 0);
  app.addHook('onClose', async () => {
    for (const stream of streams) stream.end();
  });
  app.get('/events', async (request: FastifyRequest, reply: FastifyReply) => {
    const web = request.web;
    if (!web) return reply.code(401).type('text/plain').send('sign in first');
    const parsed = parseLivePage(request.query as Record<string, unknown>);
    if (!parsed.ok) return reply.code(400).type('text/plain').send(parsed.message);
    if (streams.size >= maxStreams) return reply.code(503).header('retry-after', '30').type('text/plain').send('too many live pages open; reload later');
    // The own cluster named: followed as the own.
    const page: LivePage = parsed.page.kind === 'release' && parsed.page.cluster === deps.fleet?.own ? { ...parsed.page, cluster: undefined } : parsed.page;
    const now = () => (deps.now ?? (() => new Date()))();
    // Proposals live in Redis, not in the watch: read once when the page connects.
    const proposals: Proposal[] = deps.own.proposals ? await deps.own.proposals.listLive(now().getTime()).catch(() => []) : [];
    const viewer = { subject: web.principal.subject, teams: web.teams };
    const cluster = deps.fleet?.own;
    const key = livePartsKey(page, viewer, proposals);

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

    const frames = (): Array<[string, string]> | undefined => {
      const releases = deps.watch.releases();
      const freezes = deps.watch.freezes();
      if (!releases || !freezes) return undefined; // not listed yet (or relisting after a failure): the next change renders
      const at = now();
      const time = { revision: revision(), now: at.getTime(), until: () => keptUntil(freezes, at) };
      return renders.take(key, time, () => {
        const release = page.kind === 'release' && !page.cluster ? deps.watch.release(page.namespace, page.name) : undefined;
        const timeline = release && deps.timeline ? heldTimeline(deps.timeline, release) : undefined;
        const snapshot = { releases, freezes, proposals, ...(cluster ? { cluster } : {}), ...(timeline ? { timeline } : {}) };
        return Object.entries(liveParts(page, snapshot, viewer, at)).map(([id, html]) => [id, partFrame(id, html)]);
      });
    };
    // What this stream last sent of each part: the shared frame itself, not a copy.
    const sent = new Map<string, string>();
    const write = (id: string, frame: string) => {
      if (sent.get(id) === frame) return;
      sent.set(id, frame);
      raw.write(frame);
    };
    const render = () => {
      let parts: Array<[string, string]> | undefined;
      try {
        parts = frames();
      } catch (error) {
        log.warn({ err: error }, 'live page: could not render its parts');
        return;
      }
      // Sent on connect (a change may have come between the page's read and now), then only what changed.
      for (const [id, frame] of parts ?? []) write(id, frame);
    };
    render();
    let pending: NodeJS.Timeout | undefined;
    const later = () => {
      pending ??= setTimeout(() => {
        pending = undefined;
        render();
      }, COALESCE_MS);
    };
    const unsubscribe = [deps.watch.subscribe((change) => concerns(page, change) && later())];
    if (page.kind === 'release' && !page.cluster && deps.timeline) {
      // Records are keyed by where helm stores them, Events by the HelmRelease: looked up at each change (a spec may move them).
      const touches = (which: 'records' | 'events') => (namespace: string, name: string) => {
        const release = deps.watch.release(page.namespace, page.name);
        if (namespace === '*' || (release && timelineKeys(release)[which] === `${namespace}/${name}`)) later();
      };
      unsubscribe.push(deps.timeline.records.subscribe(touches('records')), deps.timeline.events.subscribe(touches('events')));
    }
    let closed = false;
    if (remote && deps.fleet && (page.kind === 'fleet' || (page.kind === 'release' && page.cluster))) {
      const following = followOtherClusters({ page, fleet: deps.fleet, followers: remote, viewer, now, send: (id, html) => write(id, partFrame(id, html)) });
      following.then(
        (stop) => (closed ? stop() : unsubscribe.push(stop)),
        (error: unknown) => log.warn({ err: error }, 'live page: the fleet’s other clusters cannot be followed'),
      );
    }
    const heartbeat = setInterval(() => raw.write(': ping\n\n'), HEARTBEAT_MS);
    heartbeat.unref();
    raw.on('close', () => {
      closed = true;
      streams.delete(raw);
      for (const stop of unsubscribe) stop();
      clearInterval(heartbeat);
      if (pending) clearTimeout(pending);
      pending = undefined;
    });
  });
}
