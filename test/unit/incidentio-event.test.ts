import { describe, expect, it } from 'vitest';
import type { ReleaseEvent } from '../../src/api/vocabulary.js';
import { alertEventErrors } from '../../src/dev/fake-incidentio/index.js';
import { channelKey, channelLabel, channelRefOf } from '../../src/notify/channels.js';
import { routeEvent } from '../../src/notify/routing/route-event.js';
import { incidentIoEvent } from '../../src/notify/providers/incidentio/alert-event.js';
import { refusalCode, refusalText } from '../../src/notify/providers/incidentio/incidentio-provider.js';
import type { Team } from '../../src/api/team.js';
import { notificationFor } from '../support/notify-fixtures.js';

const release = { namespace: 'web', name: 'unicorn' };
const of = (event: ReleaseEvent) => notificationFor(release, event, 'op');

describe('incident.io alert events for a notification', () => {
  it('a failure fires the release’s alert: its key, a title, helm’s error, the details as metadata', () => {
    const event = incidentIoEvent(
      { ...of('UpgradeFailed'), fromVersion: '1.0.0', toVersion: '2.0.0', errorExcerpt: 'Error: UPGRADE FAILED' },
      { cluster: 'edge', statusUrl: 'https://s/web/unicorn' },
    )!;
    expect(event).toMatchObject({
      status: 'firing',
      deduplication_key: 'helmcrew/edge/web/unicorn',
      title: 'web/unicorn in edge: UpgradeFailed of web/unicorn',
      source_url: 'https://s/web/unicorn',
      metadata: {
        source: 'helmcrew',
        event: 'UpgradeFailed',
        severity: 'error',
        cluster: 'edge',
        helmrelease: 'unicorn',
        fromVersion: '1.0.0',
        toVersion: '2.0.0',
      },
    });
    expect(event.description).toContain('```\nError: UPGRADE FAILED\n```');
    expect(alertEventErrors(event)).toEqual([]);
  });

  it('a recovery resolves the same key; what is neither sends nothing', () => {
    const fired = incidentIoEvent(of('RollbackFailed'))!;
    expect(fired.metadata?.severity).toBe('critical');
    const resolved = incidentIoEvent(of('UpgradeSucceeded'))!;
    expect(resolved).toMatchObject({ status: 'resolved', deduplication_key: fired.deduplication_key });
    expect(alertEventErrors(resolved)).toEqual([]);
    expect(incidentIoEvent(of('UpgradeStarted'))).toBeUndefined();
    expect(incidentIoEvent(of('RollbackSucceeded'))).toBeUndefined();
  });

  it('the fake refuses what incident.io refuses, naming the field', () => {
    expect(alertEventErrors({ status: 'open', title: '' }).map((e) => e.source.field)).toEqual(['status', 'title', 'deduplication_key']);
    expect(alertEventErrors([])).toHaveLength(1);
  });

  it('a refusal is told with incident.io’s reason and never the token', () => {
    const body = { type: 'validation_error', errors: [{ code: 'is_required', message: 'title is required (token s3cr3t-t0ken)', source: { field: 'title' } }] };
    expect(refusalText(body, 's3cr3t-t0ken')).toBe('validation_error: title: title is required (token [token])');
    expect(refusalCode(401)).toBe('incidentio_unauthorized');
    expect(refusalCode(422)).toBe('incidentio_invalid_event');
    expect(refusalCode(404)).toBe('http_404');
  });

  it('a channel is keyed and named by its source URL and Secret, never the token; a recovery reaches a failures-only Team', () => {
    const written = { incidentio: { url: 'https://api.incident.io/v2/alert_events/http/01ABC', secretRef: { namespace: 'ops', name: 'inc' } } };
    const ref = channelRefOf(written)!;
    expect(ref).toEqual({ kind: 'incidentio', ...written.incidentio });
    expect(channelLabel(ref)).toMatch(/^incidentio https:\/\/api\.incident\.io #[0-9a-f]{12}$/);
    expect(channelKey(ref)).not.toBe(channelKey({ kind: 'incidentio', url: written.incidentio.url, secretRef: { namespace: 'ops', name: 'other' } }));
    const team = {
      metadata: { name: 'oncall' },
      spec: { subscriptions: [{ severity: 'error' }], channels: [written, { googlechat: { secretRef: { namespace: 'ops', name: 'chat' } } }] },
    } as Team;
    expect(routeEvent(of('UpgradeSucceeded'), [team]).map((r) => r.channel.kind)).toEqual(['incidentio']);
    expect(routeEvent(of('UpgradeFailed'), [team]).map((r) => r.channel.kind)).toEqual(['incidentio', 'googlechat']);
  });
});
