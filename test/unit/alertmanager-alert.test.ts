import { describe, expect, it } from 'vitest';
import type { ReleaseEvent } from '../../src/api/vocabulary.js';
import { channelKey, channelLabel, channelRefOf } from '../../src/notify/channels.js';
import { ALERT_LIFETIME_MS, alertsFor } from '../../src/notify/providers/alertmanager/alert.js';
import { alertsEndpoint } from '../../src/notify/providers/alertmanager/alertmanager-provider.js';
import { notificationFor } from '../support/notify-fixtures.js';

const release = { namespace: 'web', name: 'unicorn' };
const now = new Date('2026-11-26T12:00:00Z');
const of = (event: ReleaseEvent) => ({ ...notificationFor(release, event, 'op'), at: '2026-11-26T11:59:00Z' });

describe('Alertmanager alerts for a notification', () => {
  it('a failure fires one alert that lasts a day; its labels name the release', () => {
    const [alert, ...rest] = alertsFor(of('UpgradeFailed'), { cluster: 'edge', statusUrl: 'https://s/web/unicorn', now })!;
    expect(rest).toEqual([]);
    expect(alert!.labels).toEqual({
      alertname: 'HelmReleaseFailed',
      cluster: 'edge',
      namespace: 'web',
      helmrelease: 'unicorn',
      release: 'unicorn',
      severity: 'error',
      source: 'helmcrew',
    });
    expect(alert!.startsAt).toBe('2026-11-26T11:59:00.000Z');
    expect(Date.parse(alert!.endsAt)).toBe(now.getTime() + ALERT_LIFETIME_MS);
    expect(alert!.generatorURL).toBe('https://s/web/unicorn');
    expect(alert!.annotations).toMatchObject({ event: 'UpgradeFailed', summary: 'web/unicorn in edge: UpgradeFailed of web/unicorn' });
  });

  it('a recovery resolves the alert of every severity a failure could have had, with the same labels', () => {
    const fired = alertsFor(of('RollbackFailed'), { now })![0]!;
    expect(fired.labels.severity).toBe('critical');
    const resolved = alertsFor(of('UpgradeSucceeded'), { now })!;
    expect(resolved.map((a) => a.labels)).toContainEqual(fired.labels);
    expect(resolved.map((a) => a.labels.severity)).toEqual(['critical', 'error', 'warning']);
    for (const alert of resolved) expect(alert.endsAt).toBe(now.toISOString());
  });

  it('sends nothing for what is neither a failure nor a recovery', () => {
    expect(alertsFor(of('UpgradeStarted'), { now })).toBeUndefined();
    expect(alertsFor(of('RollbackSucceeded'), { now })).toBeUndefined();
  });

  it('posts to the v2 API under the base URL (a route prefix kept)', () => {
    expect(alertsEndpoint('http://am:9093/')).toBe('http://am:9093/api/v2/alerts');
    expect(alertsEndpoint('https://proxy/alertmanager')).toBe('https://proxy/alertmanager/api/v2/alerts');
  });

  it('a channel is keyed and named without its token’s Secret contents', () => {
    const ref = channelRefOf({ alertmanager: { url: 'http://am:9093', secretRef: { namespace: 'mon', name: 'am' } } })!;
    expect(ref).toEqual({ kind: 'alertmanager', url: 'http://am:9093', secretRef: { namespace: 'mon', name: 'am' } });
    expect(channelLabel(ref)).toMatch(/^alertmanager http:\/\/am:9093 #[0-9a-f]{12}$/);
    expect(channelKey(ref)).not.toBe(channelKey({ kind: 'alertmanager', url: 'http://am:9093' }));
  });
});
