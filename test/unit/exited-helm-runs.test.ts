import { describe, expect, it } from 'vitest';
import { ExitedHelmRuns, takesReleaseLock } from '../../src/controller/helm/exited-helm-runs.js';

describe('the last lock-taking helm per release, once exited', () => {
  it('keeps the newest span of each release', () => {
    const runs = new ExitedHelmRuns();
    runs.record('web/unicorn', { startedAt: 1, exitedAt: 2 });
    runs.record('web/unicorn', { startedAt: 5, exitedAt: 9 });
    runs.record('web/pony', { startedAt: 3, exitedAt: 4 });
    expect(runs.last('web/unicorn')).toEqual({ startedAt: 5, exitedAt: 9 });
    expect(runs.last('web/pony')).toEqual({ startedAt: 3, exitedAt: 4 });
    expect(runs.last('web/other')).toBeUndefined();
  });

  it('counts only the steps that write a pending record', () => {
    expect(['install', 'upgrade', 'rollback'].every(takesReleaseLock)).toBe(true);
    expect(['test', 'uninstall', 'pull', 'template', 'history'].some(takesReleaseLock)).toBe(false);
  });
});
