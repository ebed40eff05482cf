import type { FreezeRow } from '../views/freezes-view.js';
import type { ProposalView } from '../views/proposals-view.js';
import type { ReleaseView } from '../views/release-view.js';
import { releaseUrl } from '../urls.js';
import { MARKS } from './fleet-templates.js';
import { renderHtml } from './html.js';

/**
 * The pages' templates. Mustache escapes every `{{value}}` (render/html.ts: every attribute is quoted);
 * no template here uses `{{{…}}}`, so a release name, a value, a status or commit message cannot
 * become markup (STYLE.md 18). The fleet page's are in render/fleet-templates.ts. Sections
 * that change live carry an id (`live-…`) on their outer element: /assets/live.js replaces that element
 * with what the server sends for it.
 */

/** The partial the Approve/Reject forms of a proposal go in (the release session's actions, mounted by the server); empty until then. */
export const PROPOSAL_ACTIONS_SLOT = 'proposalActions';

const BANNER = `{{#shown}}<div class="banner frozen" id="live-banner" role="status">{{#freezes}}<div><strong>Frozen</strong> {{#where}}<em>{{where}}</em> {{/where}}{{scope}} — by {{by}}: {{why}} ({{until}}){{#problem}} · {{problem}}{{/problem}}</div>{{/freezes}}{{#unknown}}<div><strong>Freezes unknown</strong> {{.}}</div>{{/unknown}}</div>{{/shown}}{{^shown}}<div id="live-banner"></div>{{/shown}}`;

const SUMMARY = `<div id="live-summary">
<p>{{#row}}${MARKS}{{/row}}</p>
<p>chart {{declared.chart}} {{declared.version}} declared{{#declared.suspended}} · <strong>suspended</strong>{{/declared.suspended}}</p>
{{#holding.length}}<p class="banner frozen">{{#holding}}<strong>Held by freeze {{name}}</strong> {{reason}}{{#until}} (until {{until}}){{/until}} {{/holding}}</p>{{/holding.length}}
{{#lastFailure}}<div class="error"><strong>Last failure</strong> ({{action}}, {{at}}): <pre>{{message}}</pre></div>{{/lastFailure}}
<h2>Conditions</h2>
<div class="scroll"><table><thead><tr><th>type</th><th>status</th><th>reason</th><th>message</th></tr></thead><tbody>
{{#conditions}}<tr{{#abnormal}} class="abnormal"{{/abnormal}}><td>{{type}}</td><td>{{status}}</td><td>{{reason}}</td><td>{{message}} <small>{{at}}</small></td></tr>
{{/conditions}}{{^conditions}}<tr><td colspan="4">no conditions yet</td></tr>{{/conditions}}</tbody></table></div>
</div>`;

const TIMELINE = `<div class="scroll" id="live-timeline"><table><thead><tr><th>when</th><th>who</th><th>what</th></tr></thead><tbody>
{{#timeline}}<tr class="{{kind}}"><td><small>{{at}}</small></td><td>{{who}} <span class="mark">{{viaText}}</span>{{#approvers.length}}<div>approved by {{#approvers}}{{.}} {{/approvers}}</div>{{/approvers.length}}</td><td>{{what}}{{#why}}<div class="why">{{why}}</div>{{/why}}</td></tr>
{{/timeline}}{{^timeline}}<tr><td colspan="3">nothing recorded yet</td></tr>{{/timeline}}</tbody></table></div>`;

const PROPOSAL = `<article class="proposal" id="proposal-{{id}}">
<h3><a href="{{url}}">{{namespace}}/{{name}}</a>{{#cluster}} <small>cluster {{cluster}}</small>{{/cluster}}</h3>
<p>{{summary}} — proposed by {{proposedBy}}{{#ownedBy}} · spec owned by {{ownedBy}}{{/ownedBy}}</p>
<p>approvals {{approvers.length}} of {{required}}{{#approvers.length}}: {{#approvers}}{{.}} {{/approvers}}{{/approvers.length}} · expires {{expiresAt}}</p>
{{#diff.length}}<details><summary>diff</summary><pre class="diff">{{#diff}}{{.}}
{{/diff}}{{#diffMore}}… and {{diffMore}} more lines{{/diffMore}}</pre></details>{{/diff.length}}
<div class="proposal-actions">{{> ${PROPOSAL_ACTIONS_SLOT}}}</div>
</article>`;

const RELEASE = `<h1>{{row.namespace}}/{{row.name}}{{#row.cluster}} <small>cluster {{row.cluster}}</small>{{/row.cluster}}</h1>
{{#slackThread}}<p class="thread"><a href="{{slackThread}}" rel="noopener noreferrer">Slack thread</a></p>{{/slackThread}}
{{> summary}}
{{#proposals.length}}<h2>Open proposals</h2>{{#proposals}}{{> proposal}}{{/proposals}}{{/proposals.length}}
<h2>Timeline</h2>
{{> timeline}}
<h2>Values</h2>
<p><small>What helm was given; a value not declared on the HelmRelease itself (valuesFrom) or named like a secret is masked.</small></p>
<div class="scroll"><table><tbody>{{#values}}<tr><td><code>{{path}}</code></td><td><code>{{value}}</code></td></tr>{{/values}}{{^values}}<tr><td>no values</td></tr>{{/values}}</tbody></table></div>
<h2>Objects</h2>
<div class="scroll"><table><thead><tr><th>kind</th><th>name</th><th>health</th></tr></thead><tbody>
{{#objects}}<tr><td>{{kind}}</td><td>{{namespace}}{{#namespace}}/{{/namespace}}{{name}}</td><td><span class="mark {{health}}">{{health}}</span> {{message}}</td></tr>
{{/objects}}{{^objects}}<tr><td colspan="3">no objects recorded (status.inventory)</td></tr>{{/objects}}</tbody></table></div>`;

const FREEZES = `<h1>Freezes and windows</h1>
{{#unknown}}<p class="error">Freezes unknown: {{.}}</p>{{/unknown}}
<div class="scroll"><table><thead><tr><th>freeze</th>{{#fleet}}<th>where</th>{{/fleet}}<th>scope</th><th>state</th><th>who, why</th><th>until</th><th>windows</th></tr></thead><tbody>
{{#freezes}}<tr><td>{{name}}</td>{{#fleet}}<td>{{where}}</td>{{/fleet}}<td>{{scope}}</td><td>{{state}}{{#problem}} <small>{{problem}}</small>{{/problem}}</td><td>{{by}}: {{why}}</td><td>{{until}}</td><td>{{#windows}}<div>{{.}}</div>{{/windows}}{{^windows}}always{{/windows}}</td><td>{{#liftable}}<form method="get" action="/freezes/plan"><input type="hidden" name="unfreeze" value="{{name}}"><button type="submit">unfreeze</button></form>{{/liftable}}{{^liftable}}<small>lifted in its cluster</small>{{/liftable}}</td></tr>
{{/freezes}}{{^freezes}}<tr><td colspan="8">no freezes</td></tr>{{/freezes}}</tbody></table></div>
<h2>Freeze</h2>
<form class="act" method="get" action="/freezes/plan"><input name="scope" placeholder="namespace, team:…, chart:…, all" required size="18">
<input name="reason" placeholder="reason" required size="16"> <input name="for" placeholder="for (2h)" size="6"> <input name="until" placeholder="or until (18:00)" size="10">
<button type="submit">freeze</button></form>
<p><small>Each shows its plan first; your Teams' <code>freeze</code> and <code>unfreeze</code> grants decide, as in chat.</small></p>`;

const PROPOSALS = `<h1>Open proposals</h1>
{{#proposals}}{{> proposal}}{{/proposals}}{{^proposals}}<p>No open proposal on a release your Teams let you see.</p>{{/proposals}}
{{#unreadable.length}}<p class="error">{{#unreadable}}{{.}} {{/unreadable}}</p>{{/unreadable.length}}`;

function withUrl(p: ProposalView, fleet: boolean) {
  return {
    ...p,
    cluster: fleet ? p.cluster : '',
    url: releaseUrl('', fleet ? p.cluster : undefined, p.namespace, p.name),
    // Where its Approve/Reject forms post (web/actions/proposal-vote-routes.ts): the proposal's own cluster, as the store keys it.
    voteUrl: `/proposals/${encodeURIComponent(p.cluster)}/${encodeURIComponent(p.id)}/vote`,
  };
}

export interface TemplateOptions {
  /** The Approve/Reject forms (a mustache template rendered with the proposal and `csrfToken`); none: the slot stays empty. */
  proposalActions?: string;
  csrfToken?: string;
  /** The release's latest Slack thread (its permalink, http(s) only); none: no link. */
  slackThread?: string;
}

/** The freeze banner: active freezes (in a fleet each with where it holds) and the clusters whose Freezes could not be read. */
export function renderBanner(freezes: readonly FreezeRow[], unknown: readonly string[] = []): string {
  return renderHtml(BANNER, { freezes, unknown, shown: freezes.length > 0 || unknown.length > 0 });
}

export function renderReleaseSummary(view: ReleaseView): string {
  return renderHtml(SUMMARY, view);
}

/** The release page's timeline alone: what a live update replaces when a record or an Event of the release changes. */
export function renderReleaseTimeline(view: Pick<ReleaseView, 'timeline'>): string {
  return renderHtml(TIMELINE, view);
}

export function renderRelease(view: ReleaseView, options: TemplateOptions = {}): string {
  const fleet = view.row.cluster !== undefined;
  return renderHtml(
    RELEASE,
    {
      ...view,
      slackThread: options.slackThread && /^https?:\/\//.test(options.slackThread) ? options.slackThread : undefined,
      proposals: view.proposals.map((p) => ({ ...withUrl(p, fleet), csrfToken: options.csrfToken ?? '' })),
    },
    { summary: SUMMARY, timeline: TIMELINE, proposal: PROPOSAL, [PROPOSAL_ACTIONS_SLOT]: options.proposalActions ?? '' },
  );
}

/** The freezes page; `fleet` adds where each holds and the clusters whose Freezes are unknown. */
export function renderFreezesPage(freezes: readonly FreezeRow[], fleet?: { unknown: readonly string[] }): string {
  return renderHtml(FREEZES, { freezes, fleet: fleet !== undefined, unknown: fleet?.unknown ?? [] });
}

export function renderProposalsPage(proposals: readonly ProposalView[], fleet: boolean, unreadable: readonly string[], options: TemplateOptions = {}): string {
  return renderHtml(
    PROPOSALS,
    { proposals: proposals.map((p) => ({ ...withUrl(p, fleet), csrfToken: options.csrfToken ?? '' })), unreadable },
    { proposal: PROPOSAL, [PROPOSAL_ACTIONS_SLOT]: options.proposalActions ?? '' },
  );
}
