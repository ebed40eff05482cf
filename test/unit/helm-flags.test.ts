import { describe, expect, it } from 'vitest';
import type { HelmReleaseSpec } from '../../src/api/helmrelease.js';
import { actionOptions } from '../../src/core/release/action-options.js';
import { installFlags, rollbackFlags, testFlags, uninstallFlags, upgradeFlags } from '../../src/controller/helm/helm-flags.js';

const chart = { repository: 'https://charts.example.org', name: 'unicorn' };
const options = (spec: Partial<HelmReleaseSpec>) => actionOptions({ chart, ...spec });

/** Issue 24: every action's options, Flux's defaults, spelled as helm 4.2.4 flags. */
describe('helm flags of each action', () => {
  it.each([
    {
      name: 'install defaults: wait for readiness and Jobs, server-side apply forcing conflicts, take ownership (Flux)',
      spec: {},
      want: ['--wait=watcher', '--wait-for-jobs', '--timeout', '300s', '--server-side=true', '--force-conflicts', '--take-ownership'],
    },
    {
      name: 'install with every option turned',
      spec: {
        timeout: '2m',
        install: {
          timeout: '45s',
          disableWait: true,
          disableHooks: true,
          replace: true,
          disableSchemaValidation: true,
          disableTakeOwnership: true,
          serverSideApply: false,
        },
      },
      want: ['--wait=hookOnly', '--timeout', '45s', '--server-side=false', '--no-hooks', '--replace', '--skip-schema-validation'],
    },
    {
      name: 'install waiting without Jobs; spec.timeout as the default',
      spec: { timeout: '2m', install: { disableWaitForJobs: true } },
      want: ['--wait=watcher', '--timeout', '120s', '--server-side=true', '--force-conflicts', '--take-ownership'],
    },
  ])('$name', ({ spec, want }) => {
    expect(installFlags(options(spec).install)).toEqual(want);
  });

  it.each([
    { name: 'auto after a server-side revision', spec: {}, last: 'ssa', apply: ['--server-side=true', '--force-conflicts'] },
    { name: 'auto after a client-side revision (helm refuses --force-conflicts there)', spec: {}, last: 'csa', apply: ['--server-side=false'] },
    { name: 'auto after a helm 3 record (no method: client-side)', spec: {}, last: undefined, apply: ['--server-side=false'] },
    { name: 'enabled', spec: { upgrade: { serverSideApply: 'enabled' as const } }, last: 'csa', apply: ['--server-side=true', '--force-conflicts'] },
    { name: 'disabled', spec: { upgrade: { serverSideApply: 'disabled' as const } }, last: 'ssa', apply: ['--server-side=false'] },
    {
      name: 'force replaces client-side whatever the mode',
      spec: { upgrade: { force: true, serverSideApply: 'enabled' as const } },
      last: 'ssa',
      apply: ['--force-replace', '--server-side=false'],
    },
  ])('upgrade apply mode: $name', ({ spec, last, apply }) => {
    expect(upgradeFlags(options(spec).upgrade, last)).toEqual(['--wait=watcher', '--wait-for-jobs', '--timeout', '300s', ...apply, '--take-ownership']);
  });

  it('upgrade with hooks off, cleanup on fail, no schema check, no ownership taken, its own timeout', () => {
    const spec = {
      upgrade: { timeout: '90s', disableHooks: true, cleanupOnFail: true, disableSchemaValidation: true, disableTakeOwnership: true, disableWaitForJobs: true },
    };
    expect(upgradeFlags(options(spec).upgrade, 'ssa')).toEqual([
      '--wait=watcher',
      '--timeout',
      '90s',
      '--server-side=true',
      '--force-conflicts',
      '--no-hooks',
      '--cleanup-on-fail',
      '--skip-schema-validation',
    ]);
  });

  it('upgrade without waiting never asks for Jobs (helm ignores --wait-for-jobs without --wait)', () => {
    expect(upgradeFlags(options({ upgrade: { disableWait: true } }).upgrade, 'ssa').slice(0, 3)).toEqual(['--wait=hookOnly', '--timeout', '300s']);
  });

  it.each([
    { name: 'defaults', spec: {}, last: 'ssa', want: ['--wait=watcher', '--wait-for-jobs', '--timeout', '300s', '--server-side=true', '--force-conflicts'] },
    {
      name: 'spec.rollback block',
      spec: { rollback: { timeout: '1m', disableHooks: true, disableWait: true, cleanupOnFail: true, force: true } },
      last: 'ssa',
      want: ['--wait=hookOnly', '--timeout', '60s', '--force-replace', '--server-side=false', '--no-hooks', '--cleanup-on-fail'],
    },
  ])('rollback: $name', ({ spec, last, want }) => {
    expect(rollbackFlags(options(spec).rollback, last)).toEqual(want);
  });

  it.each([
    { name: 'defaults: wait for deletion, background cascade', spec: {}, want: ['--wait', '--timeout', '300s', '--cascade', 'background'] },
    {
      name: 'no wait, no hooks, foreground, kept history, its own timeout',
      spec: { uninstall: { disableWait: true, disableHooks: true, deletionPropagation: 'foreground' as const, keepHistory: true, timeout: '30s' } },
      want: ['--timeout', '30s', '--cascade', 'foreground', '--no-hooks', '--keep-history'],
    },
  ])('uninstall: $name', ({ spec, want }) => {
    expect(uninstallFlags(options(spec).uninstall)).toEqual(want);
  });

  it('test filters: run the named tests, or skip the excluded ones', () => {
    const spec = { test: { timeout: '20s', filters: [{ name: 'smoke' }, { name: 'slow', exclude: true }] } };
    expect(testFlags(options(spec).test)).toEqual(['--timeout', '20s', '--filter', 'name=smoke', '--filter', '!name=slow']);
    expect(testFlags(options({ timeout: '3m' }).test)).toEqual(['--timeout', '180s']);
  });
});
