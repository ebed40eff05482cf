import type { FleetView } from '../views/fleet-view.js';
import { releaseUrl } from '../urls.js';
import { renderHtml } from './html.js';

/**
 * The fleet page's templates (render/templates.ts has the others and the escaping rules: every
 * `{{value}}` escaped, no `{{{…}}}`). A row leaves out the optional `</td>` and `</tr>` (HTML's own
 * rule; a browser closes them): a row is written 1,000 times on a big fleet.
 *
 * Rendered one namespace at a time, each namespace's HTML copied out flat at once: mustache builds
 * its output by concatenation, a rope of ~15 pieces a row, and a rope of 1,000 rows lived through
 * several young-generation collections under the image's 1 MiB semi-space, so most of it was promoted
 * to old space and stayed there until a full collection (docs/performance.md). A namespace's rope
 * dies young.
 */

/** The marks of a release (Ready, Failed, Suspended…): shared with the release page's summary. */
export const MARKS = `{{#marks}}<span class="mark {{mark}}">{{label}}</span>{{/marks}}`;

const CLUSTER_HEAD = `<section class="cluster" id="{{liveId}}">
{{#name}}<h2>cluster {{name}} <small>({{count}})</small></h2>{{/name}}
{{#unavailable}}<p class="error">{{unavailable}}</p>{{/unavailable}}
`;

const NAMESPACE = `<details open><summary><strong>{{name}}</strong> <small>{{releases.length}}</small></summary>
<div class="scroll"><table><thead><tr><th>release</th><th>chart</th><th>state</th></tr></thead><tbody>
{{#releases}}<tr><td><a href="{{url}}">{{name}}</a><td>{{chart}} {{version}}<td>${MARKS}{{#message}}<div class="msg">{{message}}</div>{{/message}}
{{/releases}}</tbody></table></div></details>
`;

const CLUSTER_TAIL = `{{^hasNamespaces}}{{^unavailable}}<p>No release here that your Teams let you see.</p>{{/unavailable}}{{/hasNamespaces}}
</section>`;

const FLEET_HEAD = `<h1>Fleet</h1>
<form class="filters" method="get" action="/">
{{#hasClusters}}<label>cluster <select name="cluster"><option value="">all</option>{{#clusterOptions}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{value}}</option>{{/clusterOptions}}</select></label>{{/hasClusters}}
<label>namespace <select name="namespace"><option value="">all</option>{{#namespaceOptions}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{value}}</option>{{/namespaceOptions}}</select></label>
<label>Team <select name="team"><option value="">all</option>{{#teamOptions}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{value}}</option>{{/teamOptions}}</select></label>
<label>state <select name="state"><option value="">any</option>{{#stateOptions}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/stateOptions}}</select></label>
<button type="submit">Filter</button>
</form>
`;

const COUNTS = `<p class="counts" id="live-counts">{{total}} releases · {{#countList}}<span class="mark {{mark}}">{{label}} {{n}}</span>{{/countList}}</p>`;

type Cluster = FleetView['clusters'][number];

/** The id of a cluster's section on the fleet page (its live part). */
export const fleetSectionId = (cluster: string | undefined) => `live-cluster-${cluster ?? 'own'}`;

const selected = (values: readonly string[], current: string | undefined) => values.map((value) => ({ value, selected: value === current }));

/** The whole fleet page body: filters, counts, then each cluster's section. */
export function renderFleet(view: FleetView): string {
  const head = renderHtml(FLEET_HEAD, {
    hasClusters: view.options.clusters.length > 0,
    clusterOptions: selected(view.options.clusters, view.filters.cluster),
    namespaceOptions: selected(view.options.namespaces, view.filters.namespace),
    teamOptions: selected(view.options.teams, view.filters.team),
    stateOptions: view.options.states.map((s) => ({ ...s, selected: s.value === view.filters.state })),
  });
  return flatJoin([head, renderFleetCounts(view), ...view.clusters.map(renderFleetCluster)]);
}

/** One cluster's section of the fleet page alone: what a live update replaces. */
export function renderFleetCluster(cluster: Cluster): string {
  const context = { ...cluster, liveId: fleetSectionId(cluster.name), hasNamespaces: cluster.namespaces.length > 0 };
  const namespaces = cluster.namespaces.map((ns) =>
    // The rows' links made here, a namespace at a time, so no copy of every row lives through the render.
    Buffer.from(renderHtml(NAMESPACE, { ...ns, releases: ns.releases.map((r) => ({ ...r, url: releaseUrl('', r.cluster, r.namespace, r.name) })) })),
  );
  return flatJoin([renderHtml(CLUSTER_HEAD, context), ...namespaces, renderHtml(CLUSTER_TAIL, context)]);
}

export function renderFleetCounts(view: FleetView): string {
  return renderHtml(COUNTS, {
    total: view.counts.total,
    countList: view.options.states.map((s) => ({ mark: s.value, label: s.label, n: view.counts[s.value] })),
  });
}

/** Pieces of HTML as one flat string: copying each out (Buffer.from) is what lets its rope go at once. */
function flatJoin(parts: ReadonlyArray<string | Buffer>): string {
  return Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part) : part))).toString();
}
