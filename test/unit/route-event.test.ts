import { describe, expect, it } from 'vitest';
import type { Subscription, Team, TeamChannel } from '../../src/api/team.js';
import { severityOf, type ReleaseEvent } from '../../src/api/vocabulary.js';
import type { ReleaseNotification } from '../../src/notify/contract.js';
import { routeEvent, selectorMatches, subscriptionMatches } from '../../src/notify/routing/route-event.js';

const notification = (
  over: { event?: ReleaseEvent; namespace?: string; targetNamespace?: string; name?: string; chart?: string; labels?: Record<string, string> } = {},
): ReleaseNotification => {
  const event = over.event ?? 'UpgradeSucceeded';
  const namespace = over.namespace ?? 'web';
  const name = over.name ?? 'unicorn';
  return {
    id: 'n1',
    operationId: 'uid:3:upgrade',
    event,
    severity: severityOf(event),
    release: {
      namespace,
      name,
      releaseName: name,
      targetNamespace: over.targetNamespace ?? namespace,
      chart: over.chart ?? 'unicorn',
      labels: over.labels ?? {},
    },
    cause: 'spec change',
    message: 'Upgraded',
    at: '2026-11-23T06:00:00.000Z',
  };
};

const team = (name: string, subscriptions: Subscription[] | undefined, channels: TeamChannel[] = [{ slack: `#${name}` }]): Team => ({
  apiVersion: 'helmcrew.dev/v1alpha1',
  kind: 'Team',
  metadata: { name },
  spec: { channels, subscriptions },
});

describe('subscriptionMatches', () => {
  it.each([
    { name: 'empty subscription hears everything', sub: {}, given: {}, want: true },
    { name: 'namespace listed', sub: { namespaces: ['prod', 'web'] }, given: {}, want: true },
    { name: 'namespace not listed', sub: { namespaces: ['prod'] }, given: {}, want: false },
    {
      name: 'target namespace counts as the release namespace',
      sub: { namespaces: ['prod'] },
      given: { namespace: 'gitops', targetNamespace: 'prod' },
      want: true,
    },
    { name: 'chart listed', sub: { charts: ['unicorn'] }, given: {}, want: true },
    { name: 'chart not listed', sub: { charts: ['frontend'] }, given: {}, want: false },
    { name: 'release by name, any namespace', sub: { releases: ['unicorn'] }, given: { namespace: 'other' }, want: true },
    { name: 'release by namespace/name', sub: { releases: ['web/unicorn'] }, given: {}, want: true },
    { name: 'release by namespace/name, other namespace', sub: { releases: ['prod/unicorn'] }, given: {}, want: false },
    { name: 'release name differs', sub: { releases: ['narwhal'] }, given: {}, want: false },
    { name: 'event listed', sub: { events: ['UpgradeSucceeded'] as ReleaseEvent[] }, given: {}, want: true },
    { name: 'event not listed', sub: { events: ['UpgradeFailed'] as ReleaseEvent[] }, given: {}, want: false },
    { name: 'severity error hears a failure', sub: { severity: 'error' as const }, given: { event: 'UpgradeFailed' as const }, want: true },
    { name: 'severity error ignores a success', sub: { severity: 'error' as const }, given: {}, want: false },
    { name: 'severity info hears a failure too (it is a minimum)', sub: { severity: 'info' as const }, given: { event: 'InstallFailed' as const }, want: true },
    { name: 'labels match', sub: { selector: { matchLabels: { tier: 'web' } } }, given: { labels: { tier: 'web', env: 'prod' } }, want: true },
    { name: 'labels differ', sub: { selector: { matchLabels: { tier: 'db' } } }, given: { labels: { tier: 'web' } }, want: false },
    { name: 'all fields must hold: namespace yes, chart no', sub: { namespaces: ['web'], charts: ['frontend'] }, given: {}, want: false },
    {
      name: 'all fields hold',
      sub: { namespaces: ['prod'], severity: 'error' as const },
      given: { namespace: 'prod', event: 'ChartPullFailed' as const },
      want: true,
    },
  ])('$name → $want', ({ sub, given, want }) => {
    expect(subscriptionMatches(sub as Subscription, notification(given as Parameters<typeof notification>[0]))).toBe(want);
  });
});

describe('selectorMatches', () => {
  it.each([
    { name: 'empty selector', selector: {}, labels: {}, want: true },
    {
      name: 'In, present',
      selector: { matchExpressions: [{ key: 'env', operator: 'In' as const, values: ['prod', 'staging'] }] },
      labels: { env: 'prod' },
      want: true,
    },
    { name: 'In, absent', selector: { matchExpressions: [{ key: 'env', operator: 'In' as const, values: ['prod'] }] }, labels: {}, want: false },
    {
      name: 'NotIn, absent key matches',
      selector: { matchExpressions: [{ key: 'env', operator: 'NotIn' as const, values: ['prod'] }] },
      labels: {},
      want: true,
    },
    {
      name: 'NotIn, listed value',
      selector: { matchExpressions: [{ key: 'env', operator: 'NotIn' as const, values: ['prod'] }] },
      labels: { env: 'prod' },
      want: false,
    },
    { name: 'Exists', selector: { matchExpressions: [{ key: 'team', operator: 'Exists' as const }] }, labels: { team: '' }, want: true },
    { name: 'DoesNotExist', selector: { matchExpressions: [{ key: 'team', operator: 'DoesNotExist' as const }] }, labels: { team: 'a' }, want: false },
    {
      name: 'matchLabels and expressions both hold',
      selector: { matchLabels: { tier: 'web' }, matchExpressions: [{ key: 'env', operator: 'Exists' as const }] },
      labels: { tier: 'web' },
      want: false,
    },
  ])('$name → $want', ({ selector, labels, want }) => {
    expect(selectorMatches(selector, labels as Record<string, string>)).toBe(want);
  });
});

describe('routeEvent', () => {
  const onCall = team(
    'oncall',
    [{ namespaces: ['prod'], severity: 'error' }],
    [{ slack: '#oncall' }, { webhook: { url: 'https://hooks.test/a?token=s3cret', secretRef: { namespace: 'ops', name: 'hook' } } }],
  );
  const frontend = team('frontend', [{ charts: ['unicorn'] }]);
  const quiet = team('quiet', [{ namespaces: ['nowhere'] }]);
  const deaf = team('deaf', undefined);
  const all = [onCall, frontend, quiet, deaf];

  it.each([
    {
      name: 'failure in prod: on-call (both channels) and frontend',
      given: { namespace: 'prod', event: 'UpgradeFailed' as const },
      want: ['oncall #oncall', 'oncall webhook', 'frontend #frontend'],
    },
    { name: 'success in prod: frontend only', given: { namespace: 'prod' }, want: ['frontend #frontend'] },
    { name: 'failure elsewhere of another chart: nobody', given: { namespace: 'staging', chart: 'narwhal', event: 'InstallFailed' as const }, want: [] },
    {
      name: 'failure of another chart in prod: on-call only',
      given: { namespace: 'prod', chart: 'narwhal', event: 'ChartPullFailed' as const },
      want: ['oncall #oncall', 'oncall webhook'],
    },
    { name: 'any event of the frontend chart anywhere', given: { namespace: 'team-b', event: 'Resumed' as const }, want: ['frontend #frontend'] },
  ])('$name', ({ given, want }) => {
    const routes = routeEvent(notification(given), all);
    expect(routes.map((r) => `${r.team} ${r.channel.kind === 'slack' ? r.channel.channel : 'webhook'}`)).toEqual(want);
  });

  it('no Team at all → no route', () => {
    expect(routeEvent(notification(), [])).toEqual([]);
  });

  it('a channel listed twice in one Team is delivered once; two subscriptions matching is one route', () => {
    const twice = team('twice', [{ charts: ['unicorn'] }, { namespaces: ['web'] }], [{ slack: '#x' }, { slack: '#x' }]);
    expect(routeEvent(notification(), [twice])).toHaveLength(1);
  });

  it('a webhook route is keyed without its URL (which can hold a token)', () => {
    const [, hook] = routeEvent(notification({ namespace: 'prod', event: 'UpgradeFailed' }), [onCall]);
    expect(hook!.channelKey).toMatch(/^webhook\.[0-9a-f]{12}$/);
    expect(hook!.channelKey).not.toContain('s3cret');
  });
});

describe('routing per cluster (a fleet notify)', () => {
  const inCluster = (cluster: string | undefined): ReleaseNotification => ({
    ...notification({ namespace: 'web', name: 'web' }),
    ...(cluster ? { cluster } : {}),
  });
  const teams = [
    team('web', [{ releases: ['web'] }]),
    team('web-staging', [{ releases: ['web'], clusters: ['staging-*'] }]),
    team('prod-oncall', [
      { clusters: ['prod-eu', 'prod-us'], severity: 'error' },
      { clusters: ['prod-*'], events: ['Frozen'] },
    ]),
  ];
  const heard = (cluster: string | undefined) => routeEvent(inCluster(cluster), teams).map((r) => r.team);

  it('a Team without clusters hears every cluster, named or not', () => {
    expect(heard('prod-eu')).toContain('web');
    expect(heard('staging-1')).toContain('web');
    expect(heard(undefined)).toContain('web');
  });

  it('a subscription with clusters hears only those clusters', () => {
    expect(heard('staging-1')).toEqual(['web', 'web-staging']);
    expect(heard('prod-eu')).toEqual(['web']);
    expect(heard(undefined)).toEqual(['web']);
  });

  it('clusters is one more field every other field must match with', () => {
    const failed = { ...inCluster('prod-eu'), event: 'UpgradeFailed' as const, severity: severityOf('UpgradeFailed') };
    expect(routeEvent(failed, teams).map((r) => r.team)).toEqual(['web', 'prod-oncall']);
    expect(routeEvent({ ...failed, cluster: 'prod-asia' }, teams).map((r) => r.team)).toEqual(['web']);
    expect(subscriptionMatches({ clusters: ['default'] }, inCluster(undefined))).toBe(true);
  });
});
