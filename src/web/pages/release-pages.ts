import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '../../core/log.js';
import type { PageRoutes, WebRequestContext } from '../contract.js';
import { registerEventsRoute } from '../live/events-route.js';
import { LIVE_SCRIPT } from '../live/live-script.js';
import { actionVerbsFor, renderActionForms } from '../actions/action-forms.js';
import { renderLayout } from '../render/layout.js';
import { renderFleet } from '../render/fleet-templates.js';
import { renderBanner, renderFreezesPage, renderProposalsPage, renderRelease } from '../render/templates.js';
import { clusterOfSegment } from '../urls.js';
import { fleetView, parseFleetFilters } from '../views/fleet-view.js';
import { bannerFreezes } from '../views/freezes-view.js';
import type { FleetFreezeRows } from '../views/fleet-freezes-view.js';
import type { ClusterReading } from '../views/fleet-view.js';
import { proposalView } from '../views/proposals-view.js';
import { releaseView } from '../views/release-view.js';
import { maySee } from '../views/visibility.js';
import type { PagesDeps } from './deps.js';
import { findRelease, locateCluster, readClusters, readRelease } from './reads.js';
import { bannerRows, freezesPageRows } from './freeze-reads.js';
import { fleetBodyKey, keptUntil, KeptRenders } from './kept-renders.js';
import { chooseEncoding, gzipAnswer } from '../server/compression.js';
import Mustache from 'mustache';

/** The pages' CSP: scripts only from this server (/assets/live.js), nothing inline. */
export const PAGES_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

const liveAnchor = (url: string) => Mustache.render('<div hidden data-live="{{url}}"></div><script src="/assets/live.js" defer></script>', { url });

/**
 * The release pages, read side (docs/web.md): the fleet `/`, a release
 * `/releases/:cluster/:namespace/:name`, `/freezes`, `/proposals`, the live stream `/events` and
 * its script `/assets/live.js`. Each reads what the signed-in person's Teams let them `status`
 * (session/authz), renders with templates that escape every value, and works without script.
 */
export function releasePages(deps: PagesDeps, log: Logger): PageRoutes {
  const now = () => (deps.now ?? (() => new Date()))();
  // A few bodies (~130 KiB each at 1,000 releases), more gzipped answers (~7 KiB each).
  const fleetBodies = new KeptRenders<string>(8);
  const fleetAnswers = new KeptRenders<Promise<Buffer>>(64);
  return (app: FastifyInstance) => {
    const layout = (web: WebRequestContext, title: string, body: string, banner: FleetFreezeRows) =>
      renderLayout({
        title,
        body,
        banner: renderBanner(banner.rows, banner.unknown),
        signedIn: { name: web.principal.name, via: web.principal.via },
        csrfToken: web.csrfToken,
      });
    const send = (reply: FastifyReply, code: number, answer: string | Buffer) => {
      if (!reply.hasHeader('content-security-policy')) reply.header('content-security-policy', PAGES_CSP);
      return reply.code(code).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(answer);
    };
    /** A page with the banner: every cluster's active freezes in a fleet (`readings` when the page read them all already). */
    const page = async (reply: FastifyReply, web: WebRequestContext, title: string, body: string, code = 200, readings?: ClusterReading[]) => {
      const banner = await bannerRows(deps, now(), readings).catch((error: unknown) => ({
        rows: [],
        unknown: [`could not be read: ${(error as Error).message}`],
      }));
      return send(reply, code, layout(web, title, body, banner));
    };
    const problem = (reply: FastifyReply, web: WebRequestContext, code: number, title: string, message: string) =>
      page(reply, web, title, Mustache.render('<h1>{{title}}</h1><p class="error">{{message}}</p>', { title, message }), code);
    /** A read failed: said on the page, logged without the request's details. */
    const guarded =
      (title: string, handler: (request: FastifyRequest, reply: FastifyReply, web: WebRequestContext) => Promise<unknown>) =>
      async (request: FastifyRequest, reply: FastifyReply) => {
        const web = request.web;
        if (!web) return reply.code(401).type('text/plain').send('sign in first');
        try {
          return await handler(request, reply, web);
        } catch (error) {
          log.warn({ err: error, page: title }, 'a release page could not be read');
          return problem(reply, web, 503, title, `could not be read now: ${(error as Error).message}`);
        }
      };

    app.get('/assets/live.js', async (_request, reply) => reply.type('text/javascript; charset=utf-8').header('cache-control', 'no-cache').send(LIVE_SCRIPT));

    app.get(
      '/',
      guarded('Fleet', async (request, reply, web) => {
        const filters = parseFleetFilters(request.query as Record<string, unknown>);
        const at = now();
        // Read before the readings: a change arriving meanwhile leaves the body kept at an older revision.
        const revision = deps.watch.revision;
        const readings = await readClusters(deps, at);
        const viewer = { subject: web.principal.subject, teams: web.teams };
        const live = new URLSearchParams({ page: 'fleet', ...filters });
        const render = () => renderFleet(fleetView(readings, viewer, filters, at)) + liveAnchor(`/events?${live.toString()}`);
        // Kept only over the shared watch's memory: a fleet's other clusters, or a watch not listed yet, are read afresh.
        const own = readings.length === 1 && !deps.fleet && deps.watch.releases() !== undefined ? readings[0]! : undefined;
        if (!own) return page(reply, web, 'Fleet', render(), 200, readings);
        const key = fleetBodyKey(viewer, filters, own.proposals);
        const time = { revision, now: at.getTime(), until: () => keptUntil(own.freezes, at) };
        const body = () => fleetBodies.take(key, time, render);
        // A browser's reload: the whole answer as sent before, gzipped, for this session (its CSRF token is in it).
        const banner = () => ({ rows: bannerFreezes(own.freezes, at), unknown: [] });
        if (!chooseEncoding(request.headers['accept-encoding'])) return send(reply, 200, layout(web, 'Fleet', body(), banner()));
        const answer = await fleetAnswers.take(`${key} ${web.csrfToken}`, time, () => gzipAnswer(layout(web, 'Fleet', body(), banner())));
        return send(reply.header('vary', 'accept-encoding').header('content-encoding', 'gzip'), 200, answer);
      }),
    );

    app.get(
      '/releases/:cluster/:namespace/:name',
      guarded('Release', async (request, reply, web) => {
        const params = request.params as { cluster: string; namespace: string; name: string };
        const where = await locateCluster(deps, clusterOfSegment(params.cluster));
        if (!where.ok) return problem(reply, web, 404, 'Release', where.message);
        const release = await findRelease(deps, where, params.namespace, params.name);
        // Not there, or not theirs to see: the same answer, so a page does not tell which releases exist.
        if (!release || !maySee(web.principal.subject, web.teams, release, where.cluster))
          return problem(reply, web, 404, 'Release', `no release ${params.namespace}/${params.name} that your Teams let you see`);
        const [reading, slackThread] = await Promise.all([
          readRelease(deps, where, release, now()),
          deps.slackThread ? deps.slackThread(params.namespace, params.name, where.cluster) : Promise.resolve(undefined),
        ]);
        const view = releaseView(reading, now());
        const forms = actionVerbsFor(web.principal.subject, web.teams, release, where.cluster);
        const act = renderActionForms(`${request.url.split('?')[0]!.replace(/\/+$/, '')}/plan`, forms);
        const options = { ...(deps.proposalActions ? { proposalActions: deps.proposalActions } : {}), ...(slackThread ? { slackThread } : {}) };
        const body = renderRelease(view, { ...options, csrfToken: web.csrfToken }) + act;
        // Another cluster's page is live only where its change signal is wired (PagesDeps.remoteChanges).
        const follows: Record<string, string> | undefined = where.own ? {} : deps.remoteChanges && where.cluster ? { cluster: where.cluster } : undefined;
        const live = follows
          ? liveAnchor(`/events?${new URLSearchParams({ page: 'release', release: `${params.namespace}/${params.name}`, ...follows }).toString()}`)
          : '';
        return page(reply, web, `${params.namespace}/${params.name}`, body + live);
      }),
    );

    app.get(
      '/freezes',
      guarded('Freezes', async (_request, reply, web) => {
        const { rows, unknown, fleet } = await freezesPageRows(deps, now());
        const body = renderFreezesPage(rows, fleet ? { unknown } : undefined);
        // In a fleet the banner is read with the page (other clusters send no Freeze changes): not followed live.
        return page(reply, web, 'Freezes', fleet ? body : body + liveAnchor('/events?page=banner'));
      }),
    );

    app.get(
      '/proposals',
      guarded('Proposals', async (_request, reply, web) => {
        const readings = await readClusters(deps, now());
        const visible = readings.flatMap((reading) =>
          reading.proposals
            .filter((p) => p.state.phase === 'open')
            .filter((p) => {
              const release = reading.releases.find((r) => r.metadata.namespace === p.release.namespace && r.metadata.name === p.release.name);
              return release !== undefined && maySee(web.principal.subject, web.teams, release, reading.name);
            })
            .map(proposalView),
        );
        const unreadable = readings.filter((r) => r.unavailable).map((r) => `cluster ${r.name ?? ''}: ${r.unavailable ?? ''}`);
        const body = renderProposalsPage(visible, deps.fleet !== undefined, unreadable, {
          ...(deps.proposalActions ? { proposalActions: deps.proposalActions } : {}),
          csrfToken: web.csrfToken,
        });
        return page(reply, web, 'Proposals', body, 200, readings);
      }),
    );

    registerEventsRoute(app, deps, log);
  };
}
