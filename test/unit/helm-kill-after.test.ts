import { describe, expect, it } from 'vitest';
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
