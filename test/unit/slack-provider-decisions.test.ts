import { WebAPIHTTPError, WebAPIPlatformError, WebAPIRateLimitedError, WebAPIRequestError } from '@slack/web-api';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/config/env.js';
import { RateLimiter } from '../../src/dev/fake-slack/rate-limits.js';
import { PermanentDeliveryError, RetryableDeliveryError } from '../../src/notify/contract.js';
import { readSlackConfig } from '../../src/notify/providers/slack/config.js';
import { entryKey, keysToEvict, parseState } from '../../src/notify/providers/slack/message-store.js';
import { toDeliveryError } from '../../src/notify/providers/slack/slack-errors.js';

const TOKEN = 'xoxb-1234-secret';

describe('Slack failures → delivery contract', () => {
  it.each([
    { name: 'invalid_auth', error: new WebAPIPlatformError({ ok: false, error: 'invalid_auth' }), want: 'permanent', code: 'invalid_auth' },
    { name: 'token_revoked', error: new WebAPIPlatformError({ ok: false, error: 'token_revoked' }), want: 'permanent', code: 'token_revoked' },
    { name: 'account_inactive', error: new WebAPIPlatformError({ ok: false, error: 'account_inactive' }), want: 'permanent', code: 'account_inactive' },
    { name: 'channel_not_found', error: new WebAPIPlatformError({ ok: false, error: 'channel_not_found' }), want: 'permanent', code: 'channel_not_found' },
    { name: 'not_in_channel', error: new WebAPIPlatformError({ ok: false, error: 'not_in_channel' }), want: 'permanent', code: 'not_in_channel' },
    { name: 'is_archived', error: new WebAPIPlatformError({ ok: false, error: 'is_archived' }), want: 'permanent', code: 'is_archived' },
    {
      name: 'invalid_blocks (same answer every time)',
      error: new WebAPIPlatformError({ ok: false, error: 'invalid_blocks' }),
      want: 'permanent',
      code: 'invalid_blocks',
    },
    { name: 'internal_error', error: new WebAPIPlatformError({ ok: false, error: 'internal_error' }), want: 'retryable' },
    { name: 'HTTP 500', error: new WebAPIHTTPError(500, 'Internal Server Error', {}, ''), want: 'retryable' },
    { name: 'HTTP 503', error: new WebAPIHTTPError(503, 'Service Unavailable', {}, ''), want: 'retryable' },
    { name: 'HTTP 404', error: new WebAPIHTTPError(404, 'Not Found', {}, ''), want: 'permanent', code: 'http_404' },
    { name: 'network', error: new WebAPIRequestError(new Error('connect ECONNREFUSED 127.0.0.1:1')), want: 'retryable' },
    { name: '429', error: new WebAPIRateLimitedError(30), want: 'retryable', retryAfterMs: 30_000 },
    { name: 'anything else', error: new Error('boom'), want: 'retryable' },
  ])('$name → $want', ({ error, want, code, retryAfterMs }) => {
    const mapped = toDeliveryError(error, 'chat.postMessage', [TOKEN]);
    expect(mapped).toBeInstanceOf(want === 'permanent' ? PermanentDeliveryError : RetryableDeliveryError);
    if (code) expect((mapped as PermanentDeliveryError).code).toBe(code);
    if (retryAfterMs) expect((mapped as RetryableDeliveryError).retryAfterMs).toBe(retryAfterMs);
  });

  it('cuts the token out of any message it builds', () => {
    const mapped = toDeliveryError(new WebAPIRequestError(new Error(`proxy said Bearer ${TOKEN} is bad`)), 'chat.update', [TOKEN]);
    expect(mapped.message).not.toContain(TOKEN);
    expect(mapped.message).toContain('[redacted]');
  });
});

describe('readSlackConfig', () => {
  it.each([
    { name: 'no token', env: {}, want: undefined },
    {
      name: 'token only',
      env: { SLACK_BOT_TOKEN: 'xoxb-a' },
      want: { botToken: 'xoxb-a', apiUrl: undefined, timeoutMs: 10_000, updatePerMinute: 45, updateBurst: 40, outcomeWaitMs: 2000 },
    },
    {
      name: 'API URL gets its slash',
      env: { SLACK_BOT_TOKEN: 'xoxb-a', SLACK_API_URL: 'http://127.0.0.1:9/api' },
      want: { botToken: 'xoxb-a', apiUrl: 'http://127.0.0.1:9/api/', timeoutMs: 10_000, updatePerMinute: 45, updateBurst: 40, outcomeWaitMs: 2000 },
    },
    {
      name: 'chat.update share from the environment',
      env: { SLACK_BOT_TOKEN: 'xoxb-a', HELMCREW_SLACK_UPDATE_PER_MINUTE: '30', HELMCREW_SLACK_UPDATE_BURST: '5' },
      want: { botToken: 'xoxb-a', apiUrl: undefined, timeoutMs: 10_000, updatePerMinute: 30, updateBurst: 5, outcomeWaitMs: 2000 },
    },
    {
      name: 'an outcome that never waits for its edit',
      env: { SLACK_BOT_TOKEN: 'xoxb-a', HELMCREW_SLACK_OUTCOME_WAIT_SECONDS: '0' },
      want: { botToken: 'xoxb-a', apiUrl: undefined, timeoutMs: 10_000, updatePerMinute: 45, updateBurst: 40, outcomeWaitMs: 0 },
    },
    {
      name: 'half a second',
      env: { SLACK_BOT_TOKEN: 'xoxb-a', HELMCREW_SLACK_OUTCOME_WAIT_SECONDS: '0.5' },
      want: { botToken: 'xoxb-a', apiUrl: undefined, timeoutMs: 10_000, updatePerMinute: 45, updateBurst: 40, outcomeWaitMs: 500 },
    },
  ])('$name', ({ env, want }) => expect(readSlackConfig(env)).toEqual(want));

  it.each([
    { name: 'not a URL', env: { SLACK_BOT_TOKEN: 'xoxb-a', SLACK_API_URL: 'nope' }, names: 'SLACK_API_URL' },
    { name: 'not http', env: { SLACK_BOT_TOKEN: 'xoxb-a', SLACK_API_URL: 'ftp://x/' }, names: 'SLACK_API_URL' },
    { name: 'token with a space', env: { SLACK_BOT_TOKEN: 'xoxb-a b' }, names: 'SLACK_BOT_TOKEN' },
    { name: 'bad timeout', env: { SLACK_BOT_TOKEN: 'xoxb-a', SLACK_TIMEOUT_MS: '-1' }, names: 'SLACK_TIMEOUT_MS' },
    {
      name: 'a negative outcome wait',
      env: { SLACK_BOT_TOKEN: 'xoxb-a', HELMCREW_SLACK_OUTCOME_WAIT_SECONDS: '-2' },
      names: 'HELMCREW_SLACK_OUTCOME_WAIT_SECONDS',
    },
    {
      name: 'an outcome wait that is no number',
      env: { SLACK_BOT_TOKEN: 'xoxb-a', HELMCREW_SLACK_OUTCOME_WAIT_SECONDS: 'soon' },
      names: 'HELMCREW_SLACK_OUTCOME_WAIT_SECONDS',
    },
  ])('refuses $name, naming the variable and never echoing the token', ({ env, names }) => {
    let error: unknown;
    try {
      readSlackConfig(env);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(names);
    expect((error as Error).message).not.toContain('xoxb-a');
  });
});

describe('message references', () => {
  it('entry keys are valid ConfigMap keys, distinct per operation and channel', () => {
    const keys = [entryKey('uid:4:upgrade', '#a'), entryKey('uid:4:upgrade', '#b'), entryKey('uid:5:upgrade', '#a')];
    for (const key of keys) expect(key).toMatch(/^[-._a-zA-Z0-9]{1,253}$/);
    expect(new Set(keys).size).toBe(3);
  });

  const entry = (minute: number) =>
    JSON.stringify({ ts: '1.1', channelId: 'C', timeline: [], delivered: [], updatedAt: new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString() });
  it.each([
    { name: 'under the limit', data: { a: entry(1), b: entry(2) }, max: 3, want: [] },
    { name: 'oldest go first', data: { a: entry(5), b: entry(1), c: entry(3), d: entry(2) }, max: 2, want: ['b', 'd'] },
    { name: 'unreadable entries go before any readable one', data: { a: entry(1), junk: 'not json' }, max: 1, want: ['junk'] },
  ] as Array<{ name: string; data: Record<string, string>; max: number; want: string[] }>)('eviction: $name', ({ data, max, want }) =>
    expect(keysToEvict(data, max)).toEqual(want),
  );

  it.each([
    { name: 'valid', raw: entry(1), ok: true },
    { name: 'no ts', raw: JSON.stringify({ channelId: 'C', timeline: [], delivered: [] }), ok: false },
    { name: 'not JSON', raw: '{', ok: false },
    { name: 'missing', raw: undefined, ok: false },
  ])('parseState: $name', ({ raw, ok }) => expect(parseState(raw) !== undefined).toBe(ok));
});

describe('fake Slack rate limiter (token bucket)', () => {
  it('allows the burst, then answers the whole seconds until the next call', () => {
    let now = 0;
    const limiter = new RateLimiter(() => now);
    const limit = { burst: 3, perSecond: 1 };
    expect([1, 2, 3].map(() => limiter.take('c', limit))).toEqual([0, 0, 0]);
    expect(limiter.take('c', limit)).toBe(1);
    now = 1000;
    expect(limiter.take('c', limit)).toBe(0);
    expect(limiter.take('other', limit)).toBe(0);
    const slow = { burst: 1, perSecond: 50 / 60 };
    expect(limiter.take('s', slow)).toBe(0);
    expect(limiter.take('s', slow)).toBe(2);
  });
});
