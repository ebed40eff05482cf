import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { clampDuration, clampTimerMs, MAX_TIMER_MS, parseDuration } from '../../src/api/duration.js';
import { ReleaseEvent } from '../../src/api/vocabulary.js';
import { describeHelmOutcome, helmTimedOut } from '../../src/controller/helm/helm-error.js';
import { decodeReleasePayload, ReleaseRecordError } from '../../src/core/helm-storage/release-record.js';
import { releaseTarget } from '../../src/core/release/release-target.js';
import { unexpectedErrorMessage, unexpectedErrorReason } from '../../src/controller/reconcile/unexpected-error.js';
import { MAX_VALUES_DEPTH, valuesDepth, valuesTooDeep } from '../../src/controller/reconcile/desired/values-depth.js';
import type { HelmRelease } from '../../src/api/helmrelease.js';

/** Values nested `depth` maps deep, built without recursion. */
function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: true };
  for (let i = 1; i < depth; i++) value = { a: value };
  return value;
}

describe('valuesDepth', () => {
  it.each([
    { name: 'scalar', given: 'x', want: 0 },
    { name: 'empty map', given: {}, want: 1 },
    { name: 'map of scalars', given: { a: 1, b: 'x' }, want: 1 },
    { name: 'list in a map', given: { a: [1, { b: 2 }] }, want: 3 },
    { name: '50 levels', given: nested(50), want: 50 },
  ])('$name → $want', ({ given, want }) => expect(valuesDepth(given)).toBe(want));

  it('walks 100 000 levels without overflowing the stack', () => {
    expect(valuesDepth(nested(100_000))).toBe(100_000);
  });

  it('refuses values deeper than the limit with a message naming them', () => {
    expect(valuesTooDeep(nested(MAX_VALUES_DEPTH), 'spec.values')).toBeUndefined();
    expect(valuesTooDeep(nested(1500), 'spec.values')).toMatch(/spec.values nest more than 100 levels deep/);
  });
});

describe('durations', () => {
  it.each([
    { name: 'ordinary', given: 300_000, want: 300_000 },
    { name: '600h overflows a Node timer', given: parseDuration('600h'), want: MAX_TIMER_MS },
    { name: 'zero', given: 0, want: 1 },
    { name: 'infinite', given: Number.POSITIVE_INFINITY, want: MAX_TIMER_MS },
  ])('clampTimerMs: $name', ({ given, want }) => expect(clampTimerMs(given)).toBe(want));

  it.each([
    { name: 'interval 0s', given: 0, want: 1000 },
    { name: 'timeout 600h', given: parseDuration('600h'), want: parseDuration('24h') },
    { name: 'inside', given: 5000, want: 5000 },
  ])('clampDuration: $name', ({ given, want }) => expect(clampDuration(given, '1s', '24h')).toBe(want));

  const release = (spec: Record<string, unknown>) =>
    ({
      metadata: { namespace: 'ns', name: 'r', generation: 1 },
      spec: { chart: { repository: 'https://x.test', name: 'c' }, ...spec },
    }) as unknown as HelmRelease;
  it.each([
    { name: 'timeout 600h (stored before the schema bound)', spec: { timeout: '600h' }, want: { timeoutSeconds: 24 * 3600 } },
    { name: 'interval 0s', spec: { interval: '0s' }, want: { intervalMs: 1000 } },
    { name: 'defaults', spec: {}, want: { timeoutSeconds: 300, intervalMs: 600_000 } },
  ])('releaseTarget clamps $name', ({ spec, want }) => expect(releaseTarget(release(spec))).toMatchObject(want));
});

describe('decodeReleasePayload limits', () => {
  const encode = (bytes: Buffer) => Buffer.from(bytes.toString('base64')).toString('base64');
  const limits = { maxEncodedChars: 1024 * 1024, maxInflatedBytes: 64 * 1024 };
  const good = { name: 'r', namespace: 'ns', version: 1 };

  it('decodes a record within the limits', () => {
    expect(decodeReleasePayload(encode(gzipSync(JSON.stringify(good))), 'ns/rec', limits)).toMatchObject(good);
  });

  it.each([
    { name: 'inflates past the limit', data: () => encode(gzipSync(Buffer.alloc(10 * 1024 * 1024, 0x41))), want: /ns\/rec inflates past the 0.06 MiB limit/ },
    { name: 'too large encoded', data: () => 'A'.repeat(2 * 1024 * 1024), want: /ns\/rec is 2 MiB encoded, over the 1 MiB limit/ },
    { name: 'corrupt gzip', data: () => encode(Buffer.concat([Buffer.from([0x1f, 0x8b]), Buffer.from('not gzip at all')])), want: /ns\/rec is not valid gzip/ },
    { name: 'not JSON', data: () => encode(gzipSync('{oops')), want: /ns\/rec is not valid JSON/ },
    { name: 'JSON but not an object', data: () => encode(gzipSync('[1]')), want: /ns\/rec is not a release object/ },
  ])('$name → ReleaseRecordError', ({ data, want }) => {
    let error: unknown;
    try {
      decodeReleasePayload(data(), 'ns/rec', limits);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ReleaseRecordError);
    expect((error as Error).message).toMatch(want);
  });
});

describe('unexpected errors', () => {
  it.each([
    {
      name: 'a bad release record',
      given: new ReleaseRecordError('ns/sh.helm.release.v1.r.v1', 'is not valid gzip'),
      reason: ReleaseEvent.ReleaseRecordInvalid,
      message: /^Helm release record ns\/sh.helm.release.v1.r.v1 is not valid gzip; nothing is done for this release until that Secret is deleted or repaired$/,
    },
    {
      name: 'a stack overflow',
      given: new RangeError('Maximum call stack size exceeded'),
      reason: ReleaseEvent.ReconcileError,
      message: /^Reconcile failed: Maximum call stack size exceeded$/,
    },
    { name: 'anything else', given: new TypeError('x is undefined'), reason: ReleaseEvent.ReconcileError, message: /^Reconcile failed: x is undefined$/ },
    { name: 'a long message', given: new Error('e'.repeat(5000)), reason: ReleaseEvent.ReconcileError, message: /^Reconcile failed: e{900,1000}…$/ },
  ])('$name → $reason', ({ given, reason, message }) => {
    expect(unexpectedErrorReason(given)).toBe(reason);
    expect(unexpectedErrorMessage(given)).toMatch(message);
  });
});

describe('helm timeouts', () => {
  it.each([
    { name: 'killed by the deadline', given: { killed: true, durationMs: 10, timeoutSeconds: 300 }, want: true },
    { name: 'failed after its own --timeout', given: { killed: false, durationMs: 3100, timeoutSeconds: 3 }, want: true },
    { name: 'failed quickly', given: { killed: false, durationMs: 900, timeoutSeconds: 3 }, want: false },
    { name: 'no timeout known', given: { killed: false, durationMs: 900_000 }, want: false },
  ])('helmTimedOut: $name → $want', ({ given, want }) => expect(helmTimedOut(given)).toBe(want));

  it.each([
    {
      name: 'timeout, no output',
      given: { step: 'install' as const, timedOut: true, timeoutSeconds: 3, excerpt: '(no output)' },
      want: "timed out after 3s waiting for the release's resources to become ready (spec.timeout)",
    },
    {
      name: 'timeout with words',
      given: { step: 'uninstall' as const, timedOut: true, timeoutSeconds: 60, excerpt: 'Error: context deadline exceeded' },
      want: "timed out after 60s waiting for the release's resources to be deleted (spec.timeout); helm said: Error: context deadline exceeded",
    },
    { name: 'plain failure', given: { step: 'upgrade' as const, timedOut: false, excerpt: 'Error: boom' }, want: 'failed: Error: boom' },
  ])('describeHelmOutcome: $name', ({ given, want }) => expect(describeHelmOutcome(given)).toBe(want));
});
