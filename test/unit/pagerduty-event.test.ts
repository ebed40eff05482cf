import { describe, expect, it } from 'vitest';
import type { Team } from '../../src/api/team.js';
import { severityOf, type ReleaseEvent } from '../../src/api/vocabulary.js';
import { validateEvent } from '../../src/dev/fake-pagerduty/index.js';
import { channelKey, channelLabel, channelRefOf } from '../../src/notify/channels.js';
import type { ReleaseNotification } from '../../src/notify/contract.js';
import { dedupKeyOf, incidentAction, pagerdutyEvent, pagerdutySeverity } from '../../src/notify/providers/pagerduty/event.js';
import { readPagerDutyConfig } from '../../src/notify/providers/pagerduty/pagerduty-provider.js';
import { routeEvent } from '../../src/notify/routing/route-event.js';

const KEY = 'r0ut1ngk3yr0ut1ngk3yr0ut1ngk3y00';

const notification = (event: ReleaseEvent, over: Partial<ReleaseNotification> = {}): ReleaseNotification => ({
  id: 'n1',
  operationId: 'uid:3:upgrade',
  event,
  severity: severityOf(event),
  release: { namespace: 'prod', name: 'unicorn', releaseName: 'unicorn', targetNamespace: 'prod', chart: 'unicorn', labels: {} },
  fromVersion: '1.0.0',
  toVersion: '4.0.0',
  cause: 'spec change (generation 4)',
  message: 'Helm upgrade to unicorn@4.0.0 failed',
  errorExcerpt: 'context deadline exceeded',
  at: '2026-11-23T06:00:00.000Z',
  ...over,
});

describe('PagerDuty: what an event does to the incident', () => {
  it('failures trigger, recoveries resolve, the rest is not sent', () => {
    expect(incidentAction(notification('UpgradeFailed'))).toBe('trigger');
    expect(incidentAction(notification('InstallFailed'))).toBe('trigger');
    expect(incidentAction(notification('ChartPullFailed'))).toBe('trigger');
    expect(incidentAction(notification('UpgradeSucceeded'))).toBe('resolve');
    expect(incidentAction(notification('InstallSucceeded'))).toBe('resolve');
    expect(incidentAction(notification('UninstallSucceeded'))).toBe('resolve');
    // A rollback brings back what ran before, not what was declared: the incident stays open.
    expect(incidentAction(notification('RollbackSucceeded'))).toBeUndefined();
    expect(incidentAction(notification('UpgradeStarted'))).toBeUndefined();
    // Error-severity but not the release failing: an audit line and a lock helmcrew cleared.
    expect(incidentAction(notification('ActionRefused'))).toBeUndefined();
    expect(incidentAction(notification('ReleaseUnlocked'))).toBeUndefined();
  });

  it('maps severity from the event', () => {
    expect(pagerdutySeverity(notification('UpgradeFailed'))).toBe('error');
    expect(pagerdutySeverity(notification('RollbackFailed'))).toBe('critical');
    expect(pagerdutySeverity(notification('DriftDetected'))).toBe('warning');
    expect(pagerdutySeverity(notification('UpgradeSucceeded'))).toBe('info');
  });

  it('one dedup_key per release (and cluster), whatever the operation', () => {
    const a = notification('UpgradeFailed');
    const b = notification('UpgradeSucceeded', { operationId: 'uid:5:upgrade' });
    expect(dedupKeyOf(a.release)).toBe('helmcrew/prod/unicorn');
    expect(dedupKeyOf(b.release)).toBe(dedupKeyOf(a.release));
    expect(dedupKeyOf(a.release, 'eu-1')).toBe('helmcrew/eu-1/prod/unicorn');
    expect(dedupKeyOf({ ...a.release, name: 'x'.repeat(300) }).length).toBe(255);
  });

  it('builds events PagerDuty accepts, with the routing key only in routing_key', () => {
    const trigger = pagerdutyEvent(notification('UpgradeFailed'), KEY, 'eu-1')!;
    expect(validateEvent(trigger)).toEqual([]);
    expect(trigger).toMatchObject({
      event_action: 'trigger',
      dedup_key: 'helmcrew/eu-1/prod/unicorn',
      payload: { severity: 'error', source: 'eu-1/prod/unicorn' },
    });
    expect((trigger.payload as { summary: string }).summary).toContain('eu-1');
    const resolve = pagerdutyEvent(notification('UpgradeSucceeded'), KEY)!;
    expect(validateEvent(resolve)).toEqual([]);
    expect(resolve).toEqual({ routing_key: KEY, event_action: 'resolve', dedup_key: 'helmcrew/prod/unicorn' });
    for (const event of [trigger, resolve]) expect(JSON.stringify({ ...event, routing_key: undefined })).not.toContain(KEY);
    expect(pagerdutyEvent(notification('UpgradeStarted'), KEY)).toBeUndefined();
    const long = pagerdutyEvent(notification('UpgradeFailed', { message: 'm'.repeat(5000) }), KEY)!;
    expect(validateEvent(long)).toEqual([]);
  });

  it('the fake refuses what PagerDuty refuses', () => {
    expect(validateEvent({ routing_key: 'short', event_action: 'trigger', payload: { summary: 's', source: 's', severity: 'error' } })).toEqual([
      expect.stringMatching(/routing_key/),
    ]);
    expect(validateEvent({ routing_key: KEY, event_action: 'trigger', payload: { summary: '', source: 's', severity: 'fatal' } })).toHaveLength(2);
    expect(validateEvent({ routing_key: KEY, event_action: 'resolve' })).toEqual([expect.stringMatching(/dedup_key/)]);
    expect(validateEvent([])).toHaveLength(1);
  });

  it('reads its endpoint from HELMCREW_PAGERDUTY_URL', () => {
    expect(readPagerDutyConfig({}).url).toMatch(/\/v2\/enqueue$/);
    expect(readPagerDutyConfig({ HELMCREW_PAGERDUTY_URL: 'http://127.0.0.1:9/v2/enqueue', HELMCREW_CLUSTER_NAME: 'eu-1' })).toEqual({
      url: 'http://127.0.0.1:9/v2/enqueue',
      cluster: 'eu-1',
    });
    expect(() => readPagerDutyConfig({ HELMCREW_PAGERDUTY_URL: 'ftp://x' })).toThrow(/HELMCREW_PAGERDUTY_URL must be an http\(s\) URL/);
  });
});

describe('PagerDuty channels', () => {
  const secretRef = { namespace: 'oncall', name: 'pd' };
  const team = (severity?: 'error'): Team => ({
    apiVersion: 'helmcrew.dev/v1alpha1',
    kind: 'Team',
    metadata: { name: 'oncall' },
    spec: { subscriptions: [{ namespaces: ['prod'], ...(severity ? { severity } : {}) }], channels: [{ slack: '#oncall' }, { pagerduty: { secretRef } }] },
  });

  it('are keyed and named by their Secret, never its value', () => {
    const ref = channelRefOf({ pagerduty: { secretRef } })!;
    expect(ref).toEqual({ kind: 'pagerduty', secretRef });
    expect(channelKey(ref)).toMatch(/^pagerduty\.[0-9a-f]{12}$/);
    expect(channelLabel(ref)).toBe('pagerduty (Secret oncall/pd#routing-key)');
    expect(channelRefOf({ slack: '#x', pagerduty: { secretRef } })).toBeUndefined();
  });

  it('hear the recovery of a Team that hears failures only; its other channels do not', () => {
    const kinds = (event: ReleaseEvent, t: Team) => routeEvent(notification(event), [t]).map((r) => r.channel.kind);
    expect(kinds('UpgradeFailed', team('error'))).toEqual(['slack', 'pagerduty']);
    expect(kinds('UpgradeSucceeded', team('error'))).toEqual(['pagerduty']);
    expect(kinds('UpgradeSucceeded', team())).toEqual(['slack', 'pagerduty']);
    expect(kinds('UpgradeStarted', team('error'))).toEqual([]);
    const elsewhere = { ...notification('UpgradeSucceeded').release, namespace: 'dev', targetNamespace: 'dev' };
    expect(routeEvent(notification('UpgradeSucceeded', { release: elsewhere }), [team('error')])).toEqual([]);
  });
});
