import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '../../core/log.js';
import type { PageRoutes, WebRequestContext } from '../contract.js';
import { registerEventsRoute } from '../live/events-route.js';
import { LIVE_SCRIPT } from '../live/live-script.js';
import { actionVerbsFor, renderActionForms } from '../actions/action-forms.js';
import { renderLayout } from '../render/layout.js';
import { renderBanner, renderFleet, renderFreezesPage, renderProposalsPage, renderRelease } from '../render/templates.js';
import { clusterOfSegment } from '../urls.js';
import { fleetView, parseFleetFilters } from '../views/fleet-view.js';
import { bannerFreezes, freezeRows } from '../views/freezes-view.js';
import { proposalView } from '../views/proposals-view.js';
import { releaseView } from '../views/release-view.js';
import { maySee } from '../views/visibility.js';
import type { PagesDeps } from './deps.js';
import { findRelease, locateCluster, ownFreezes, readClusters, readRelease } from './reads.js';
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
  return (app: FastifyInstance) => {
    const page = async (reply: FastifyReply, web: WebRequestContext, title: string, body: string, code = 200) => {
      const banner = renderBanner(bannerFreezes(await ownFreezes(deps).catch(() => []), now()));
      if (!reply.hasHeader('content-security-policy')) reply.header('content-security-policy', PAGES_CSP);
      return reply
        .code(code)
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .send(renderLayout({ title, body, banner, signedIn: { name: web.principal.name, via: web.principal.via }, csrfToken: web.csrfToken }));
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
        const view = fleetView(await readClusters(deps, now()), { subject: web.principal.subject, teams: web.teams }, filters, now());
        const live = new URLSearchParams({ page: 'fleet', ...filters });
        return page(reply, web, 'Fleet', renderFleet(view) + liveAnchor(`/events?${live.toString()}`));
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
          where.own && deps.slackThread ? deps.slackThread(params.namespace, params.name) : Promise.resolve(undefined),
        ]);
        const view = releaseView(reading, now());
        const forms = actionVerbsFor(web.principal.subject, web.teams, release, where.cluster);
        const act = renderActionForms(`${request.url.split('?')[0]!.replace(/\/+$/, '')}/plan`, forms);
        const options = { ...(deps.proposalActions ? { proposalActions: deps.proposalActions } : {}), ...(slackThread ? { slackThread } : {}) };
        const body = renderRelease(view, { ...options, csrfToken: web.csrfToken }) + act;
        const live = where.own
          ? liveAnchor(`/events?${new URLSearchParams({ page: 'release', release: `${params.namespace}/${params.name}` }).toString()}`)
          : '';
        return page(reply, web, `${params.namespace}/${params.name}`, body + live);
      }),
    );

    app.get(
      '/freezes',
      guarded('Freezes', async (_request, reply, web) => {
        const body = renderFreezesPage(freezeRows(await ownFreezes(deps), now()));
        return page(reply, web, 'Freezes', body + liveAnchor('/events?page=banner'));
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
        return page(reply, web, 'Proposals', body);
      }),
    );

    registerEventsRoute(app, deps, log);
  };
}
