import type { HelmRelease } from '../../api/helmrelease.js';
import type { LabelSelector, LabelSelectorRequirement, Subscription, Team } from '../../api/team.js';

/**
 * Pure: which HelmReleases are a Team's, for a freeze scoped to Teams. A Team's releases are the
 * ones its subscriptions name by namespace, chart, release or label selector (what it hears
 * about). A subscription that narrows none of them (`{}`, or events only) hears everything but
 * does not make everything the Team's, so it is not counted: `freeze team:sre` must not become a
 * whole-cluster freeze by accident.
 */

export interface ReleaseFacts {
  namespace: string;
  targetNamespace: string;
  name: string;
  releaseName: string;
  chart: string;
  labels: Record<string, string>;
}

export function releaseFacts(release: HelmRelease): ReleaseFacts {
  return {
    namespace: release.metadata.namespace,
    targetNamespace: release.spec.targetNamespace ?? release.metadata.namespace,
    name: release.metadata.name,
    releaseName: release.spec.releaseName ?? release.metadata.name,
    chart: release.spec.chart.name,
    labels: release.metadata.labels ?? {},
  };
}

export function teamOwns(team: Team, release: ReleaseFacts): boolean {
  return (team.spec.subscriptions ?? []).some((s) => narrows(s) && ownsBy(s, release));
}

function narrows(s: Subscription): boolean {
  return !!(s.namespaces || s.charts || s.releases || s.selector);
}

function ownsBy(s: Subscription, release: ReleaseFacts): boolean {
  if (s.namespaces && !s.namespaces.some((ns) => ns === release.namespace || ns === release.targetNamespace)) return false;
  if (s.charts && !s.charts.includes(release.chart)) return false;
  if (s.releases && !s.releases.some((ref) => refMatches(ref, release))) return false;
  if (s.selector && !selectorMatches(s.selector, release.labels)) return false;
  return true;
}

function refMatches(ref: string, release: ReleaseFacts): boolean {
  const slash = ref.indexOf('/');
  if (slash < 0) return ref === release.name || ref === release.releaseName;
  return ref.slice(0, slash) === release.namespace && ref.slice(slash + 1) === release.name;
}

function selectorMatches(selector: LabelSelector, labels: Record<string, string>): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) if (labels[key] !== value) return false;
  return (selector.matchExpressions ?? []).every((e) => requirementMatches(e, labels));
}

function requirementMatches(requirement: LabelSelectorRequirement, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, requirement.key);
  const values = requirement.values ?? [];
  switch (requirement.operator) {
    case 'In':
      return has && values.includes(labels[requirement.key]!);
    case 'NotIn':
      return !has || !values.includes(labels[requirement.key]!);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
  }
}
