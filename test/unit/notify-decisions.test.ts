import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { severityOf, type ReleaseEvent } from '../../src/api/vocabulary.js';
import type { ReleaseNotification } from '../../src/notify/contract.js';
import { planDelivery, type LastDelivered } from '../../src/notify/delivery/plan-delivery.js';
import { deliveryRetryDelayMs, PACED_LIMIT_MS, pacedWait } from '../../src/notify/delivery/retry-policy.js';
import { buildNotification, newNotificationId, operationIdOf } from '../../src/notify/publish/notification.js';
import { parseRetryAfter, webhookVerdict } from '../../src/notify/providers/webhook.js';
import { signWebhookBody, verifyWebhookSignature } from '../../src/notify/providers/webhook-signature.js';
import { nextTeamStatus } from '../../src/notify/team-status.js';

const T0 = Date.parse('2026-11-23T06:00:00Z');
const n = (id: string, event: ReleaseEvent, operationId: string, secondsAfter = 0): ReleaseNotification => ({
  id,
  operationId,
  event,
  severity: severityOf(event),
  release: { namespace: 'web', name: 'unicorn', releaseName: 'unicorn', targetNamespace: 'web', chart: 'unicorn', labels: {} },
  cause: 'test',
  message: `${event} ${id}`,
  at: new Date(T0 + secondsAfter * 1000).toISOString(),
});
const last = (event: string, operationId: string, secondsAfter = 0): LastDelivered => ({ id: 'x', event, operationId, atMs: T0 + secondsAfter * 1000 });
const WINDOW = 10 * 60_000;

describe('planDelivery', () => {
  it.each([
    { name: 'empty mailbox', pending: [], last: undefined, want: { kind: 'idle' } },
    { name: 'one new event', pending: [n('a', 'UpgradeStarted', 'op1')], last: undefined, want: { kind: 'deliver', id: 'a', consume: ['a'] } },
    {
      name: 'started then failed of one operation → say failed once',
      pending: [n('a', 'UpgradeStarted', 'op1'), n('b', 'UpgradeFailed', 'op1', 5)],
      last: undefined,
      want: { kind: 'deliver', id: 'b', consume: ['a', 'b'] },
    },
    {
      name: 'a different operation behind stays for the next turn, in order',
      pending: [n('a', 'UpgradeFailed', 'op1'), n('b', 'UpgradeStarted', 'op2', 5), n('c', 'UpgradeSucceeded', 'op2', 9)],
      last: undefined,
      want: { kind: 'deliver', id: 'a', consume: ['a'] },
    },
    {
      name: 'the same event of the same operation within the window → suppressed (ChartPullFailed retry)',
      pending: [n('b', 'ChartPullFailed', 'uid:4:prepare', 40)],
      last: last('ChartPullFailed', 'uid:4:prepare', 0),
      want: { kind: 'suppress', id: 'b', consume: ['b'] },
    },
    {
      name: 'the same event after the window → said again',
      pending: [n('b', 'ChartPullFailed', 'uid:4:prepare', 3600)],
      last: last('ChartPullFailed', 'uid:4:prepare', 0),
      want: { kind: 'deliver', id: 'b', consume: ['b'] },
    },
    {
      name: 'the same event of another operation (a new generation) → said',
      pending: [n('b', 'ChartPullFailed', 'uid:5:prepare', 40)],
      last: last('ChartPullFailed', 'uid:4:prepare', 0),
      want: { kind: 'deliver', id: 'b', consume: ['b'] },
    },
    {
      name: 'a new state of the same operation → said (an update in place)',
      pending: [n('b', 'UpgradeSucceeded', 'op1', 40)],
      last: last('UpgradeStarted', 'op1', 0),
      want: { kind: 'deliver', id: 'b', consume: ['b'] },
    },
    {
      name: 'a burst of 20 of one operation → one delivery of the latest',
      pending: Array.from({ length: 20 }, (_, i) => n(`e${String(i).padStart(2, '0')}`, i === 19 ? 'UpgradeSucceeded' : 'ChartPullFailed', 'op1', i)),
      last: undefined,
      want: { kind: 'deliver', id: 'e19', consume: Array.from({ length: 20 }, (_, i) => `e${String(i).padStart(2, '0')}`) },
    },
  ])('$name', ({ pending, last: previous, want }) => {
    const plan = planDelivery(pending, previous, WINDOW);
    if (want.kind === 'idle') return expect(plan).toEqual({ kind: 'idle' });
    expect(plan.kind).toBe(want.kind);
    if (plan.kind === 'idle') throw new Error('unreachable');
    expect(plan.notification.id).toBe(want.id);
    expect(plan.consume).toEqual(want.consume);
  });
});

describe('deliveryRetryDelayMs', () => {
  it.each([
    { attemptsMade: 1, retryAfterMs: undefined, want: 1000 },
    { attemptsMade: 2, retryAfterMs: undefined, want: 2000 },
    { attemptsMade: 5, retryAfterMs: undefined, want: 16_000 },
    { attemptsMade: 20, retryAfterMs: undefined, want: 300_000 },
    { attemptsMade: 1, retryAfterMs: 30_000, want: 30_000 },
    { attemptsMade: 9, retryAfterMs: 0, want: 0 },
    { attemptsMade: 1, retryAfterMs: 3_600_000, want: 900_000 },
  ])('attempt $attemptsMade, Retry-After $retryAfterMs → $want ms', ({ attemptsMade, retryAfterMs, want }) => {
    expect(deliveryRetryDelayMs(attemptsMade, retryAfterMs)).toBe(want);
  });
});

describe('pacedWait: Retry-After is obeyed without using an attempt, for at most an hour in a row', () => {
  const now = 10 * PACED_LIMIT_MS;
  it.each([
    { why: 'no Retry-After: an ordinary failure', retryAfterMs: undefined, pacedSince: undefined, want: undefined },
    { why: 'first 429: pacing starts now', retryAfterMs: 2000, pacedSince: undefined, want: { waitMs: 2000, pacedSince: now } },
    { why: 'still paced: the start is kept', retryAfterMs: 2000, pacedSince: now - 60_000, want: { waitMs: 2000, pacedSince: now - 60_000 } },
    { why: 'Retry-After 0 waits a second, never spins', retryAfterMs: 0, pacedSince: undefined, want: { waitMs: 1000, pacedSince: now } },
    { why: 'an hour-long Retry-After is capped at 15 min', retryAfterMs: 3_600_000, pacedSince: undefined, want: { waitMs: 900_000, pacedSince: now } },
    { why: 'after an hour of pacing, attempts count again', retryAfterMs: 2000, pacedSince: now - PACED_LIMIT_MS, want: undefined },
    { why: 'a nonsense Retry-After is no pacing', retryAfterMs: Number.NaN, pacedSince: undefined, want: undefined },
  ])('$why', ({ retryAfterMs, pacedSince, want }) => {
    expect(pacedWait(retryAfterMs, pacedSince, now)).toEqual(want);
  });
});

describe('webhook responses', () => {
  it.each([
    { status: 200, want: 'delivered' },
    { status: 204, want: 'delivered' },
    { status: 301, want: 'refused' },
    { status: 400, want: 'refused' },
    { status: 401, want: 'refused' },
    { status: 404, want: 'refused' },
    { status: 408, want: 'retry' },
    { status: 429, want: 'retry' },
    { status: 500, want: 'retry' },
    { status: 503, want: 'retry' },
  ])('HTTP $status → $want', ({ status, want }) => {
    expect(webhookVerdict(status)).toBe(want);
  });

  it.each([
    { value: null, want: undefined },
    { value: '7', want: 7000 },
    { value: 'Mon, 23 Nov 2026 06:00:30 GMT', want: 30_000 },
    { value: 'soon', want: undefined },
  ])('Retry-After $value → $want ms', ({ value, want }) => {
    expect(parseRetryAfter(value, new Date(T0))).toBe(want);
  });
});

describe('webhook signatures', () => {
  const key = 'k3y';
  const body = '{"event":"UpgradeFailed"}';
  const ts = T0 / 1000;
  const signature = signWebhookBody(key, ts, body);
  it('is sha256= and the hex HMAC of "<timestamp>.<body>"', () => {
    // What a receiver in any language computes from the documented recipe.
    expect(signature).toBe(`sha256=${createHmac('sha256', key).update(`${ts}.${body}`).digest('hex')}`);
  });
  it.each([
    { name: 'valid', given: { signature, timestamp: String(ts), body, nowSeconds: ts + 10 }, want: 'valid' },
    { name: 'replayed 10 minutes later', given: { signature, timestamp: String(ts), body, nowSeconds: ts + 600 }, want: 'stale-timestamp' },
    { name: 'body changed', given: { signature, timestamp: String(ts), body: body.replace('Failed', 'Succeeded'), nowSeconds: ts }, want: 'bad-signature' },
    { name: 'timestamp changed', given: { signature, timestamp: String(ts + 1), body, nowSeconds: ts }, want: 'bad-signature' },
    { name: 'no signature', given: { signature: undefined, timestamp: String(ts), body, nowSeconds: ts }, want: 'missing' },
  ])('$name → $want', ({ given, want }) => {
    expect(verifyWebhookSignature({ key, ...given })).toBe(want);
  });
});

describe('notifications from the controller', () => {
  const release: HelmRelease = {
    apiVersion: 'helmcrew.dev/v1alpha1',
    kind: 'HelmRelease',
    metadata: { name: 'unicorn', namespace: 'web', uid: 'u-1', generation: 4, labels: { tier: 'web' } },
    spec: { chart: { repository: 'https://charts.example.test', name: 'unicorn' }, targetNamespace: 'web-apps' },
  };
  it.each([
    { event: 'UpgradeStarted' as const, details: { action: 'upgrade', attempt: 'k1' }, want: 'u-1:4:upgrade:k1' },
    { event: 'UpgradeFailed' as const, details: { action: 'upgrade', attempt: 'k1' }, want: 'u-1:4:upgrade:k1' },
    { event: 'ChartPullFailed' as const, details: {}, want: 'u-1:4:prepare' },
    { event: 'UninstallSucceeded' as const, details: {}, want: 'u-1:4:uninstall' },
  ])('$event with $details → operation $want', ({ event, details, want }) => {
    expect(operationIdOf(release, event, details)).toBe(want);
  });

  it('carries the release, versions, revision, cause and severity', () => {
    const built = buildNotification(
      release,
      'UpgradeFailed',
      'Helm upgrade failed',
      { action: 'upgrade', fromVersion: '1.0.0', toVersion: '2.0.0', revision: 3, cause: 'spec changed', errorExcerpt: 'boom' },
      new Date(T0),
      'id1',
    );
    expect(built).toMatchObject({
      id: 'id1',
      severity: 'error',
      release: { namespace: 'web', name: 'unicorn', releaseName: 'unicorn', targetNamespace: 'web-apps', chart: 'unicorn', labels: { tier: 'web' } },
      fromVersion: '1.0.0',
      toVersion: '2.0.0',
      revision: 3,
      cause: 'spec changed',
      errorExcerpt: 'boom',
      at: '2026-11-23T06:00:00.000Z',
    });
  });

  it('ids sort in publishing order and hold no ":" (BullMQ job ids cannot)', () => {
    const ids = Array.from({ length: 50 }, () => newNotificationId(new Date(T0)));
    expect([...ids].sort()).toEqual(ids);
    expect(ids.every((id) => !id.includes(':'))).toBe(true);
  });
});

describe('nextTeamStatus', () => {
  const at = new Date(T0);
  const channels = ['#oncall', 'webhook https://hooks.test #abc'];
  it('a permanent failure → Ready False naming the channel and code; the other channel untouched', () => {
    const status = nextTeamStatus(
      { channels: [{ channel: '#oncall', lastDeliveryAt: '2026-11-23T05:00:00.000Z' }] },
      { channel: channels[1]!, ok: false, code: 'http_404', message: 'https://hooks.test refused the delivery with HTTP 404', at },
      channels,
    );
    expect(status.channels).toEqual([
      { channel: '#oncall', lastDeliveryAt: '2026-11-23T05:00:00.000Z' },
      { channel: channels[1], errorCode: 'http_404', lastError: 'https://hooks.test refused the delivery with HTTP 404', lastErrorAt: at.toISOString() },
    ]);
    expect(status.conditions?.[0]).toMatchObject({ type: 'Ready', status: 'False', reason: 'DeliveryFailed', message: expect.stringContaining('http_404') });
  });
  it('a later success clears the error → Ready True, lastDeliveryAt set', () => {
    const failed = nextTeamStatus(undefined, { channel: '#oncall', ok: false, code: 'channel_not_found', message: 'no such channel', at }, channels);
    const healed = nextTeamStatus(failed, { channel: '#oncall', ok: true, at: new Date(T0 + 1000) }, channels);
    expect(healed.channels).toEqual([{ channel: '#oncall', lastDeliveryAt: new Date(T0 + 1000).toISOString() }]);
    expect(healed.lastDeliveryAt).toBe(new Date(T0 + 1000).toISOString());
    expect(healed.conditions?.[0]).toMatchObject({ status: 'True', reason: 'Delivering' });
  });
  it('channels no longer in the spec are dropped from status', () => {
    const status = nextTeamStatus({ channels: [{ channel: '#gone', errorCode: 'x', lastError: 'y' }] }, { channel: '#oncall', ok: true, at }, channels);
    expect(status.channels?.map((c) => c.channel)).toEqual(['#oncall']);
    expect(status.conditions?.[0]?.status).toBe('True');
  });
});
