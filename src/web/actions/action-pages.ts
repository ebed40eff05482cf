import { pageOf, type ReadableDiff } from '../../core/release/readable-diff.js';
import type { Plan } from '../../session/plan/plan.js';
import { renderHtml } from '../render/html.js';
import type { WebAnswer } from './web-ports.js';

/**
 * The pages of an action: its plan with Confirm and Cancel (or why it cannot be done), the plan
 * waiting for a second person with Approve, and what was written. Every value is escaped (render/html.ts):
 * plan lines carry release names, values and reasons people typed.
 */

const PLAN = `<h1>{{title}}</h1>
{{#messages}}<p class="{{kind}}">{{text}}</p>{{/messages}}
{{#hasPlan}}<section class="plan diff">
<ul>{{#lines}}<li><code>{{.}}</code></li>{{/lines}}</ul>
{{#more.length}}<details><summary>{{more.length}} more lines</summary><ul>{{#more}}<li><code>{{.}}</code></li>{{/more}}</ul></details>{{/more.length}}
{{#warnings.length}}<ul class="warnings">{{#warnings}}<li><strong>warning:</strong> {{.}}</li>{{/warnings}}</ul>{{/warnings.length}}
</section>{{/hasPlan}}
{{#diff}}<section class="diff"><h2>What changes, object by object</h2>
<p>{{counts.changed}} changed, {{counts.added}} added, {{counts.removed}} removed</p>
{{> pager}}
{{#objects}}<details{{#open}} open{{/open}}><summary><code>{{sign}} {{kind}} {{name}}</code>{{#namespace}} ({{namespace}}){{/namespace}}</summary>
{{#hidden}}<p>contents changed (a Secret: not shown)</p>{{/hidden}}
<ul>{{#changes}}<li><code>{{path}}</code>: {{#hidden}}changed (value not shown){{/hidden}}{{^hidden}}<span class="before">{{before}}{{^before}}(none){{/before}}</span> → <span class="after">{{after}}{{^after}}(none){{/after}}</span>
{{#lines}}<pre>{{#hunks}}line {{line}}:
{{#removed}}- {{.}}
{{/removed}}{{#added}}+ {{.}}
{{/added}}{{/hunks}}{{#omittedLines}}… {{omittedLines}} more changed lines
{{/omittedLines}}</pre>{{/lines}}{{/hidden}}</li>{{/changes}}</ul>
{{#omittedChanges}}<p>{{omittedChanges}} more changed fields not shown</p>{{/omittedChanges}}
</details>{{/objects}}
{{> pager}}
{{#unpaged}}<p>{{unpaged}} more objects on further pages, once the plan can be confirmed.</p>{{/unpaged}}
{{#omittedObjects}}<p>{{omittedObjects}} more objects differ; not shown here (the plan's bounds keep it within a few MB)</p>{{/omittedObjects}}
</section>{{/diff}}
{{#planId}}{{#requireApproval}}<p>Confirming asks a second authorized person to approve (the two-person rule).</p>{{/requireApproval}}
<form class="inline" method="post" action="/plans/{{planId}}/confirm"><input type="hidden" name="_csrf" value="{{csrfToken}}"><button class="primary" type="submit">Confirm</button></form>
<form class="inline" method="post" action="/plans/{{planId}}/cancel"><input type="hidden" name="_csrf" value="{{csrfToken}}"><button type="submit">Cancel</button></form>{{/planId}}
{{#notDoable}}<p>Nothing to confirm.</p>{{/notDoable}}
{{#back}}<p><a href="{{back}}">Back to the release</a></p>{{/back}}`;

/** Objects on one page of a plan's diff: a chart of 1,000 objects is 20 pages, not one of megabytes. */
export const DIFF_PAGE_SIZE = 50;

const PAGER = `{{#pager}}<nav class="pager">page {{page}} of {{pages}} ({{total}} objects):{{#links}} {{#current}}<strong>{{n}}</strong>{{/current}}{{^current}}<a href="{{href}}">{{n}}</a>{{/current}}{{/links}}</nav>{{/pager}}`;

export interface PlanPageInput {
  answer: WebAnswer;
  csrfToken: string;
  /** The page of the diff to show (1-based; clamped); its links go to `diffUrl?page=N`. */
  page?: number;
  /** Where the diff's pages are (`/plans/<id>/diff`): without it, only the first page, and how many objects follow. */
  diffUrl?: string;
  /** Someone else's plan, read: no forms, and no "Nothing to confirm". */
  readOnly?: boolean;
  /** The release page to go back to. */
  back?: string;
  /** When nothing was planned (refused, bad input): the page's title. */
  fallbackTitle: string;
}

const SIGN = { added: '+', removed: '-', changed: '~' } as const;

/** Pure: the pager's links, one per page, the current one not a link; none for a diff of one page. */
export function pagerView(page: { page: number; pages: number; total: number }, diffUrl: string | undefined) {
  if (page.pages <= 1 || !diffUrl) return false;
  const links = Array.from({ length: page.pages }, (_, i) => ({ n: i + 1, current: i + 1 === page.page, href: `${diffUrl}?page=${i + 1}` }));
  return { page: page.page, pages: page.pages, total: page.total, links };
}

/** The diff as the template reads it: one page of it, a sign per object, the first objects open (a long diff starts folded). */
function diffView(whole: ReadableDiff, pageNumber: number, diffUrl: string | undefined) {
  const page = pageOf(whole, pageNumber, DIFF_PAGE_SIZE);
  const diff = { ...whole, objects: page.objects };
  // Every field a section reads is set on its own object: mustache would otherwise find a missing one
  // further up (the plan's own `lines`) and render that instead.
  return {
    ...diff,
    pager: pagerView(page, diffUrl),
    unpaged: !diffUrl && page.pages > 1 ? page.total - page.objects.length : false,
    objects: diff.objects.map((o, i) => ({
      ...o,
      namespace: o.namespace ?? false,
      hidden: o.hidden ?? false,
      sign: SIGN[o.change],
      open: diff.objects.length <= 8 || i < 3,
      changes: o.changes.map((c) => ({ path: c.path, before: c.before ?? false, after: c.after ?? false, lines: c.lines ?? false, hidden: c.hidden ?? false })),
    })),
  };
}

export function renderPlanBody({ answer, csrfToken, back, fallbackTitle, page = 1, diffUrl, readOnly = false }: PlanPageInput): string {
  const plan: Plan | undefined = answer.plan?.plan;
  return renderHtml(
    PLAN,
    {
      title: plan ? `Plan: ${plan.title}` : fallbackTitle,
      messages: answer.messages,
      hasPlan: Boolean(plan),
      lines: plan?.lines ?? [],
      more: plan?.more ?? [],
      warnings: plan?.warnings ?? [],
      planId: answer.plan?.planId,
      requireApproval: answer.plan?.requireApproval ?? false,
      notDoable: plan && !readOnly ? !answer.plan?.planId : false,
      diff: plan?.diff ? diffView(plan.diff, page, diffUrl) : undefined,
      csrfToken,
      back,
    },
    { pager: PAGER },
  );
}

const WAITING = `<h1>Waiting for approval: {{title}}</h1>
<p>Asked by {{requester}}. {{#several}}It needs {{needed}} approvals from other people, each authorized for the same change in their own right{{#approvedBy}}; approved so far by {{approvedBy}}{{/approvedBy}}. They approve it here or in Slack.{{/several}}{{^several}}A second person, authorized for the same change in their own right, approves it here or in Slack.{{/several}}</p>
<ul>{{#lines}}<li><code>{{.}}</code></li>{{/lines}}</ul>
{{#canApprove}}<form method="post" action="/plans/{{planId}}/approve"><input type="hidden" name="_csrf" value="{{csrfToken}}"><button class="primary" type="submit">Approve</button></form>{{/canApprove}}
{{^canApprove}}<p>Share this page with the person who approves it: <a href="/plans/{{planId}}">/plans/{{planId}}</a></p>{{/canApprove}}`;

export function renderWaitingBody(input: {
  plan: Plan;
  planId: string;
  requester: string;
  canApprove: boolean;
  csrfToken: string;
  approvals?: { needed: number; by: string[] };
}): string {
  const needed = input.approvals?.needed ?? 1;
  return renderHtml(WAITING, {
    ...input,
    title: input.plan.title,
    lines: input.plan.lines,
    several: needed > 1,
    needed,
    approvedBy: input.approvals?.by.join(', ') ?? '',
  });
}

const DONE = `<h1>{{heading}}</h1>
{{#messages}}<p class="{{kind}}">{{text}}</p>{{/messages}}
{{#applied}}<pre>{{applied}}</pre><p>The controller acts on it now; the release page shows what happens.</p>{{/applied}}
{{#back}}<p><a href="{{back}}">Back to the release</a></p>{{/back}}`;

export function renderDoneBody(input: { heading: string; answer: WebAnswer; back?: string }): string {
  return renderHtml(DONE, { heading: input.heading, messages: input.answer.messages, applied: input.answer.applied, back: input.back });
}
