import type { HelmRelease } from '../../api/helmrelease.js';
import { ReleaseEvent } from '../../api/vocabulary.js';
import type { StoredRelease } from '../../core/helm-storage/release-storage.js';
import type { Proposal } from '../../core/proposals/proposal.js';

/** Where a person's action came from. */
export type Origin = 'slack' | 'terminal' | 'web' | 'assistant' | 'helmcrew';

/** Pure: how the timeline shows an origin (an assistant's proposal: "via an assistant", as Slack and the plan page say it). */
export const originText = (origin: Origin): string => (origin === 'assistant' ? 'via an assistant' : origin);

/** A Kubernetes Event recorded on the release (session/execute/operations.ts writes the people's, the controller the rest). */
export interface ReleaseEventRecord {
  reason: string;
  message: string;
  at: string;
  type?: string;
}

export interface TimelineEntry {
  at: string;
  kind: 'revision' | 'action' | 'refusal' | 'proposal' | 'suspension' | 'controller';
  /** Who: an actor id (slack:U0123, kube:alice, oidc:ana@example.com) or helmcrew. */
  who: string;
  via: Origin;
  what: string;
  why?: string;
  approvers: string[];
  revision?: number;
}

/**
 * Pure: where an actor's action came from. The audit's `via web|assistant` (Actor.via: a Slack user
 * signed in on the web) says it outright; else by the id: `kube:` is the terminal, `oidc:` (or a
 * `web` channel) the web pages, `mcp:`/`assistant:` an assistant, `slack:` Slack.
 */
export function originOf(actor: string, channel?: string, via?: string): Origin {
  if (via === 'web' || via === 'assistant') return via;
  if (via === 'an assistant') return 'assistant';
  if (channel === 'web' || actor.startsWith('oidc:') || actor.startsWith('web:')) return 'web';
  if (actor.startsWith('mcp:') || actor.startsWith('assistant:')) return 'assistant';
  if (actor.startsWith('kube:')) return 'terminal';
  if (actor.startsWith('slack:')) return 'slack';
  return 'helmcrew';
}

// session/render/audit.ts: "<actor>[ in <channel>][ via web|an assistant] asked for the <what>[ (BREAK-GLASS … approved by <who>)][: <reason>]" ("via assistant" before)
const ASKED =
  /^(\S+)(?: in (\S+))?(?: via (web|assistant|an assistant))? (asked for the .*?|was refused .*?)(?: \(BREAK-GLASS through freeze [^,]*, approved by ([^)]+)\))?(?:: (.*))?$/s;

// controller/fleet/command-worker.ts, an agent's Event of a command the hub sent: "<actor> asked for <verb> of <ns>/<name> in cluster <c>[: <reason>] (fleet command)"
const FLEET_ASKED = /^(\S+) asked for (\S+ of \S+ in cluster [^\s:]+)(?:: (.*))? \(fleet command\)$/s;

// session/render/proposal-votes.ts: "<actor>[ (<name>)][ via web|assistant] approved|rejected|voted on proposal <id> for <key> (<summary>)…"
const VOTED = /^(\S+)(?: \([^)]*\))?(?: via (web|assistant))? ((?:approved|rejected|voted on) proposal .*)$/s;

/** Pure: a person's action from its audit Event; undefined for an Event that is not one (helm's outcomes are the revisions). */
export function actionOfEvent(event: ReleaseEventRecord): TimelineEntry | undefined {
  const refused = event.reason === ReleaseEvent.ActionRefused;
  if (event.reason !== ReleaseEvent.ActionRequested && !refused) {
    if (!event.reason.startsWith('Proposal')) return undefined;
    return { at: event.at, kind: 'proposal', who: 'helmcrew', via: 'helmcrew', what: event.message, approvers: approversIn(event.message) };
  }
  const vote = refused ? null : VOTED.exec(event.message);
  if (vote)
    return { at: event.at, kind: 'proposal', who: vote[1]!, via: originOf(vote[1]!, undefined, vote[2]), what: vote[3]!, approvers: approversIn(vote[3]!) };
  const match = ASKED.exec(event.message);
  const fleet = !match && !refused ? FLEET_ASKED.exec(event.message) : null;
  if (fleet)
    return {
      at: event.at,
      kind: 'action',
      who: fleet[1]!,
      via: originOf(fleet[1]!),
      what: `asked for ${fleet[2]!}`,
      ...(fleet[3] ? { why: fleet[3] } : {}),
      approvers: [],
    };
  if (!match) return { at: event.at, kind: refused ? 'refusal' : 'action', who: 'unknown', via: 'helmcrew', what: event.message, approvers: [] };
  const [, who, channel, via, what, breakGlassApprover, why] = match;
  return {
    at: event.at,
    kind: refused ? 'refusal' : 'action',
    who: who!,
    via: originOf(who!, channel, via),
    what: what!,
    ...(why && !refused ? { why } : {}),
    ...(why && refused ? { what: `${what!}: ${why}` } : {}),
    approvers: breakGlassApprover ? [breakGlassApprover] : [],
  };
}

/** "approved by slack:U1 (ana), slack:U2 (bob)[; …]" or inside "(approved before by …)": each approver with the name shown for them. */
function approversIn(message: string): string[] {
  const found = /approved (?:before )?by /.exec(message);
  if (!found) return [];
  let list = message
    .slice(found.index + found[0].length)
    .split(';')[0]!
    .trim();
  // A list that closes an outer bracket: the bracket is not part of the last name.
  if (list.endsWith(')') && (list.match(/\(/g) ?? []).length < (list.match(/\)/g) ?? []).length) list = list.slice(0, -1);
  return list
    .split(/(?:, | and )(?=[a-z]+:)/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Pure: a helm revision as the timeline shows it; who is helmcrew (the controller runs helm), why is helm's description. */
export function revisionEntry(record: StoredRelease): TimelineEntry {
  const app = record.appVersion ? ` (app ${record.appVersion})` : '';
  return {
    at: record.lastDeployed ?? '',
    kind: 'revision',
    who: 'helmcrew',
    via: 'helmcrew',
    what: `revision ${record.revision}: ${record.chartName} ${record.chartVersion}${app} ${record.status}`,
    ...(record.description ? { why: record.description } : {}),
    approvers: [],
    revision: record.revision,
  };
}

/** Pure: a proposal on this release: who proposed it (helmcrew for a new tag or chart version), its votes and where it stands. */
export function proposalEntry(proposal: Proposal): TimelineEntry {
  const by = proposal.facts.proposedBy;
  return {
    at: new Date(proposal.createdAt).toISOString(),
    kind: 'proposal',
    who: by ?? 'helmcrew',
    via: by ? originOf(by) : 'helmcrew',
    what: `proposal ${proposal.id} (${proposal.state.phase}): ${proposal.summary}`,
    approvers: [...proposal.state.approvers],
  };
}

/** Pure: what the status records of people and of the controller's own remediation. */
export function statusEntries(release: HelmRelease): TimelineEntry[] {
  const status = release.status ?? {};
  const entries: TimelineEntry[] = [];
  const s = status.suspension;
  if (s && release.spec.suspend)
    entries.push({
      at: s.at,
      kind: 'suspension',
      who: s.by,
      via: originOf(s.by, s.channel),
      what: 'suspended',
      ...(s.reason ? { why: s.reason } : {}),
      approvers: [],
    });
  for (const o of status.approvedOverrides ?? [])
    entries.push({
      at: o.at,
      kind: 'proposal',
      who: o.proposedBy ?? 'helmcrew',
      via: o.proposedBy ? originOf(o.proposedBy) : 'helmcrew',
      what: `applied ${o.valuesPath}${o.proposalId ? ` (proposal ${o.proposalId})` : ''}`,
      approvers: [...(o.approvers ?? [])],
    });
  const chart = status.approvedChart;
  if (chart)
    entries.push({
      at: chart.at,
      kind: 'proposal',
      who: chart.proposedBy ?? 'helmcrew',
      via: chart.proposedBy ? originOf(chart.proposedBy) : 'helmcrew',
      what: `chart version ${chart.version} in effect (proposal ${chart.proposalId})`,
      approvers: [...chart.approvers],
    });
  const r = status.lastRemediation;
  if (r)
    entries.push({
      at: r.at,
      kind: 'controller',
      who: 'helmcrew',
      via: 'helmcrew',
      what: `remediation: ${r.action} after a failed ${r.failedAction}`,
      why: r.message,
      approvers: [],
    });
  return entries;
}

/**
 * Pure: the revision timeline, newest first: every helm revision and every person's action (Events,
 * the suspension, approved proposals), and the proposals on the release. At the same time a revision
 * shows above the action that asked for it (newest first).
 */
export function timeline(
  release: HelmRelease,
  revisions: readonly StoredRelease[],
  events: readonly ReleaseEventRecord[],
  proposals: readonly Proposal[],
): TimelineEntry[] {
  const entries = [
    ...revisions.map(revisionEntry),
    ...events.map(actionOfEvent).filter((e): e is TimelineEntry => e !== undefined),
    ...proposals.map(proposalEntry),
    ...statusEntries(release),
  ];
  return entries.sort((a, b) => (Date.parse(b.at) || 0) - (Date.parse(a.at) || 0) || (a.kind === 'revision' ? 0 : 1) - (b.kind === 'revision' ? 0 : 1));
}
