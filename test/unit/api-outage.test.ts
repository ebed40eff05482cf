import { describe, expect, it, vi } from 'vitest';
import { KubeApiError } from '../../src/core/kube/api-error.js';
import { createLogger } from '../../src/core/log.js';
import { ApiOutage } from '../../src/controller/queue/api-outage.js';
import { apiOutageReason, failureDecision, probeDelayMs } from '../../src/controller/queue/retry-policy.js';
import { RetryLaterError } from '../../src/controller/reconcile/ports/context.js';
import { RestartTimers } from '../../src/controller/watch/restart-timers.js';

const socketError = (code: string, message = `connect ${code} 127.0.0.1:6443`) => Object.assign(new Error(message), { code });
const log = createLogger('unit', 'silent');
const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(check()).toBe(true);
};

describe('issue 33: an unreachable API server is told apart from a failing release', () => {
  it('socket errors and 5xx answers are outage candidates, found in the cause chain too', () => {
    expect(apiOutageReason(socketError('ECONNREFUSED'))).toBe('connect ECONNREFUSED 127.0.0.1:6443');
    expect(apiOutageReason(socketError('ECONNRESET', 'socket hang up'))).toBe('socket hang up');
    expect(apiOutageReason(socketError('ETIMEDOUT', 'GET /version: no answer within 2s'))).toBe('GET /version: no answer within 2s');
    expect(apiOutageReason(new Error('fetch failed', { cause: socketError('ECONNREFUSED') }))).toBe('connect ECONNREFUSED 127.0.0.1:6443');
    expect(apiOutageReason(new KubeApiError(503, undefined, 'GET', '/apis'))).toBe('HTTP 503');
    expect(apiOutageReason(new KubeApiError(500, { message: 'etcdserver: request timed out' }, 'PUT', '/x'))).toBe('HTTP 500');
  });

  it('what the release or the request did wrong is not', () => {
    for (const status of [400, 403, 404, 409, 422, 429]) expect(apiOutageReason(new KubeApiError(status, undefined, 'GET', '/x'))).toBeUndefined();
    expect(apiOutageReason(new RetryLaterError('the controller has not listed the Freezes yet'))).toBeUndefined();
    expect(apiOutageReason(new Error('helm upgrade failed: timed out waiting for the condition'))).toBeUndefined();
    expect(apiOutageReason(socketError('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'))).toBeUndefined();
    expect(apiOutageReason('ECONNREFUSED')).toBeUndefined();
  });

  it('a candidate waits for the API server only when the server does not answer; anything else retries with backoff', () => {
    expect(failureDecision('connect ECONNREFUSED', false)).toBe('wait-for-api-server');
    expect(failureDecision('connect ECONNREFUSED', true)).toBe('retry');
    expect(failureDecision(undefined, false)).toBe('retry');
  });

  it('the probe backs off briefly: 250 ms, 500 ms, 1 s, then every 2 s', () => {
    expect([1, 2, 3, 4, 5, 20].map(probeDelayMs)).toEqual([250, 500, 1000, 2000, 2000, 2000]);
  });
});

describe('ApiOutage', () => {
  const outage = (answers: () => boolean) => {
    let probes = 0;
    const gate = new ApiOutage({
      probe: async () => {
        probes++;
        if (!answers()) throw socketError('ECONNREFUSED');
      },
      log,
      delayMs: () => 5,
    });
    return { gate, probes: () => probes };
  };

  it('a failure the probe contradicts is the release’s: retried, no outage begins', async () => {
    const { gate, probes } = outage(() => true);
    expect(await gate.decide(socketError('ECONNREFUSED', 'connect ECONNREFUSED charts.example:443'))).toBe('retry');
    expect(gate.down).toBe(false);
    expect(probes()).toBe(1);
  });

  it('a failure that is not a candidate costs no probe', async () => {
    const { gate, probes } = outage(() => false);
    expect(await gate.decide(new KubeApiError(409, undefined, 'PUT', '/x'))).toBe('retry');
    expect(probes()).toBe(0);
  });

  it('an outage begins once, later failures wait without a probe each, and its end tells every listener in order, once', async () => {
    let up = false;
    const { gate, probes } = outage(() => up);
    const told: string[] = [];
    gate.whenBack(async () => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      told.push('watches');
    });
    gate.whenBack(() => void told.push('queue'));
    expect(await gate.decide(socketError('ECONNREFUSED'))).toBe('wait-for-api-server');
    expect(gate.down).toBe(true);
    const afterFirst = probes();
    expect(await gate.decide(new KubeApiError(503, undefined, 'GET', '/x'))).toBe('wait-for-api-server');
    await until(() => probes() > afterFirst + 2); // the outage's own probe keeps trying
    expect(told).toEqual([]);
    up = true;
    await until(() => told.length === 2);
    expect(told).toEqual(['watches', 'queue']);
    expect(gate.down).toBe(false);
    const settled = probes();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(probes()).toBe(settled); // no probing between outages
    gate.stop();
  });
});

describe('RestartTimers', () => {
  it('now() runs every waiting restart at once and cancels its timer', async () => {
    const timers = new RestartTimers<string>();
    const ran: string[] = [];
    timers.later('a', 60_000, async () => void ran.push('a'));
    timers.later('b', 60_000, async () => void ran.push('b'));
    expect(timers.has('a')).toBe(true);
    await timers.now();
    expect(ran.sort()).toEqual(['a', 'b']);
    expect(timers.has('a')).toBe(false);
    await timers.now();
    expect(ran).toHaveLength(2);
  });

  it('clear() cancels what waits', async () => {
    vi.useFakeTimers();
    try {
      const timers = new RestartTimers<string>();
      const ran: string[] = [];
      timers.later('a', 5, async () => void ran.push('a'));
      timers.clear();
      await vi.advanceTimersByTimeAsync(20);
      expect(ran).toEqual([]);
      expect(timers.has('a')).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });
});
