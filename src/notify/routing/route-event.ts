import type { LabelSelector, LabelSelectorRequirement, Subscription, Team } from '../../api/team.js';
import type { Severity } from '../../api/vocabulary.js';
import { clustersMatch } from '../../core/fleet/cluster-match.js';
import { channelKey, channelRefOf } from '../channels.js';
import type { ChannelRef, ReleaseNotification } from '../contract.js';
import { incidentAction } from '../providers/pagerduty/event.js';

/** One place a notification goes: a Team's channel. */
export interface Route {
  team: string;
  channel: ChannelRef;
  /** channelKey(channel): stable, free of secrets. */
  channelKey: string;
}

/** Channels where a failure stays open until its recovery resolves it. */
const RESOLVES_ALERTS: ReadonlySet<string> = new Set(['pagerduty', 'alertmanager', 'incidentio']);

/**
 * Where a notification goes: every channel of every Team with a subscription that matches it,
 * and a recovery to a Team's PagerDuty, Alertmanager and incident.io channels when a subscription matches it but for its
 * severity or events (so the incident a failure opened is resolved). Pure. A Team without subscriptions hears nothing; a subscription `{}` hears everything.
 * Routes are unique per (team, channel), in Team order then channel order.
 */
export function routeEvent(event: ReleaseNotification, teams: readonly Team[]): Route[] {
  const routes: Route[] = [];
  const resolves = incidentAction(event) === 'resolve';
  for (const team of teams) {
    const subscriptions = team.spec.subscriptions ?? [];
    const hears = subscriptions.some((s) => subscriptionMatches(s, event));
    // A recovery resolves the incident a failure opened, also for a Team that hears failures only.
    const resolvesIncident = resolves && subscriptions.some((s) => subscriptionMatches({ ...s, severity: undefined, events: undefined }, event));
    if (!hears && !resolvesIncident) continue;
    const seen = new Set<string>();
    for (const written of team.spec.channels ?? []) {
      const channel = channelRefOf(written);
      if (!channel || (!hears && !RESOLVES_ALERTS.has(channel.kind))) continue;
      const key = channelKey(channel);
      if (seen.has(key)) continue;
      seen.add(key);
      routes.push({ team: team.metadata.name, channel, channelKey: key });
    }
  }
  return routes;
}

const SEVERITY_RANK: Record<Severity, number> = { info: 0, error: 1 };

/** Every field a subscription sets must match (each field lists alternatives); unset fields match anything. */
export function subscriptionMatches(subscription: Subscription, event: ReleaseNotification): boolean {
  const { release } = event;
  const { clusters, namespaces, charts, releases, selector, events, severity } = subscription;
  // The cluster notify stamped (a fleet notify: the keyspace it read the event from); unnamed: `default`.
  if (!clustersMatch(clusters, event.cluster)) return false;
  // A HelmRelease kept in one namespace may install into another: either one counts as "its" namespace.
  if (namespaces && !namespaces.some((ns) => ns === release.namespace || ns === release.targetNamespace)) return false;
  if (charts && !charts.includes(release.chart)) return false;
  if (releases && !releases.some((ref) => releaseRefMatches(ref, release))) return false;
  if (selector && !selectorMatches(selector, release.labels)) return false;
  if (events && !events.includes(event.event)) return false;
  if (severity && SEVERITY_RANK[event.severity] < SEVERITY_RANK[severity]) return false;
  return true;
}

/** `name` matches the HelmRelease (or Helm release) of that name in any namespace; `namespace/name` exactly one. */
export function releaseRefMatches(ref: string, release: ReleaseNotification['release']): boolean {
  const slash = ref.indexOf('/');
  if (slash < 0) return ref === release.name || ref === release.releaseName;
  return ref.slice(0, slash) === release.namespace && ref.slice(slash + 1) === release.name;
}

/** Kubernetes label selector semantics: matchLabels and every expression must hold; an empty selector matches all. */
export function selectorMatches(selector: LabelSelector, labels: Record<string, string>): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (labels[key] !== value) return false;
  }
  return (selector.matchExpressions ?? []).every((expression) => requirementMatches(expression, labels));
}

function requirementMatches(requirement: LabelSelectorRequirement, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, requirement.key);
  const value = labels[requirement.key];
  const values = requirement.values ?? [];
  switch (requirement.operator) {
    case 'In':
      return has && values.includes(value!);
    case 'NotIn':
      return !has || !values.includes(value!);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
  }
}
