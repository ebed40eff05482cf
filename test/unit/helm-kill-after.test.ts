import { describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { readControllerConfig } from '../../src/controller/config.js';
import { dueForResync, inFlight } from '../../src/controller/watch/enqueue-policy.js';
import { HelmClient, type ReleaseRequest } from '../../src/controller/helm/helm-client.js';
import type { HelmRunOptions } from '../../src/controller/helm/helm-runner.js';
import { KILL_AFTER_MARGIN_SECONDS, killAfterMs } from '../../src/controller/helm/kill-after.js';

describe('killAfterMs', () => {
  it.each([
    { timeoutSeconds: 0, want: 60_000 },
    { timeoutSeconds: 300, want: 360_000 },
    { timeoutSeconds: 86_400, want: 86_460_000 },
  ])('helm --timeout $timeoutSeconds s: killed after $want ms', ({ timeoutSeconds, want }) => {
    expect(killAfterMs(timeoutSeconds)).toBe(want);
    expect(killAfterMs(timeoutSeconds)).toBe((timeoutSeconds + KILL_AFTER_MARGIN_SECONDS) * 1000);
  });
});

describe('every helm command given a --timeout is killed the same margin after it', () => {
  const runs: Array<{ args: string[]; opts: HelmRunOptions }> = [];
  const runner = {
    run: async (args: string[], opts: HelmRunOptions) => {
      runs.push({ args, opts });
      return '{}';
    },
  };
  const helm = new HelmClient(runner, '/nonexistent-work-dir');
  const timeoutSeconds = 123;
  const release: ReleaseRequest = {
    key: 'web/unicorn',
    releaseName: 'unicorn',
    namespace: 'web',
    chartPath: '/charts/unicorn.tgz',
    values: {},
    timeoutSeconds,
    createNamespace: false,
    maxHistory: 5,
    description: 'test',
    actionFlags: ['--timeout', `${timeoutSeconds}s`],
    labels: {},
  };
  const other = { key: 'web/unicorn', releaseName: 'unicorn', namespace: 'web', timeoutSeconds, flags: ['--timeout', `${timeoutSeconds}s`] };

  it.each<{ step: string; call: () => Promise<unknown> }>([
    { step: 'install', call: () => helm.install(release) },
    { step: 'upgrade', call: () => helm.upgrade(release) },
    { step: 'rollback', call: () => helm.rollback({ ...other, revision: 1, maxHistory: 5 }) },
    { step: 'test', call: () => helm.test(other) },
    { step: 'uninstall', call: () => helm.uninstall(other) },
  ])('$step', async ({ step, call }) => {
    runs.length = 0;
    await call();
    expect(runs).toHaveLength(1);
    expect(runs[0]!.args).toEqual(expect.arrayContaining(['--timeout', `${timeoutSeconds}s`]));
    expect(runs[0]!.opts).toMatchObject({ step, timeoutMs: killAfterMs(timeoutSeconds) });
  });
});

describe('HELMCREW_HELM_KILL_MARGIN_SECONDS: one margin for the kill and for taking a vanished attempt over', () => {
  const attempt = (startedSecondsAgo: number, now: number): HelmRelease => ({
    apiVersion: 'helmcrew.dev/v1alpha1',
    kind: 'HelmRelease',
    metadata: { name: 'unicorn', namespace: 'web', generation: 2 },
    spec: { chart: { repository: 'https://x.test', name: 'unicorn' }, timeout: '20s' },
    status: {
      observedGeneration: 1,
      lastAttemptedGeneration: 2,
      lastAttemptedAt: new Date(now - startedSecondsAgo * 1000).toISOString(),
      conditions: [{ type: 'Reconciling', status: 'True', reason: 'Progressing', message: '', lastTransitionTime: '' }],
    },
  });
  const now = Date.parse('2026-11-26T12:00:00Z');

  it.each([
    { ago: 30, marginSeconds: 60, inFlight: true },
    { ago: 79, marginSeconds: 60, inFlight: true },
    { ago: 81, marginSeconds: 60, inFlight: false },
    { ago: 24, marginSeconds: 5, inFlight: true },
    { ago: 26, marginSeconds: 5, inFlight: false },
  ])('timeout 20 s, started $ago s ago, margin $marginSeconds s: in flight $inFlight', ({ ago, marginSeconds, inFlight: want }) => {
    expect(inFlight(attempt(ago, now), now, marginSeconds * 1000)).toBe(want);
    expect(dueForResync(attempt(ago, now), now, undefined, marginSeconds * 1000)).toBe(!want);
  });

  it('the helm client kills after the same margin', async () => {
    const runs: HelmRunOptions[] = [];
    const helm = new HelmClient({ run: async (_args: string[], opts: HelmRunOptions) => (runs.push(opts), '{}') }, '/nonexistent-work-dir', 'kustomize', 5);
    await helm.test({ key: 'web/unicorn', releaseName: 'unicorn', namespace: 'web', timeoutSeconds: 20, flags: [] });
    expect(runs[0]).toMatchObject({ timeoutMs: 25_000 });
    expect(readControllerConfig({ REDIS_URL: 'redis://x', HELMCREW_HELM_KILL_MARGIN_SECONDS: '5' }).helmKillMarginSeconds).toBe(5);
    expect(readControllerConfig({ REDIS_URL: 'redis://x' }).helmKillMarginSeconds).toBe(KILL_AFTER_MARGIN_SECONDS);
  });
});
