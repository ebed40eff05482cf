import { execa } from 'execa';
import { CoreV1Api } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { awaitOutcomes } from '../../src/session/execute/await-outcome.js';
import { releaseOperations } from '../../src/session/execute/wiring.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { isMutating, type MutatingCommand } from '../../src/session/grammar/command.js';
import { parseReleaseCommand } from '../../src/session/grammar/parse.js';
import { applyHelmRelease, helmReleaseObject, servedColor, waitForReconciled } from '../../src/dev/releases.js';
import { createLogger } from '../../src/core/log.js';
import { API_GROUP, API_VERSION, HELMRELEASE_PLURAL } from '../../src/api/vocabulary.js';
import { mergePatch } from '../../src/core/kube/client.js';
import { namespaceWithController, testEnv } from '../support/fixtures.js';
import { waitForReadyReason } from '../support/eventually.js';
import { runHelmcrewCli } from '../support/helmcrew-cli.js';

/**
 * Issue 7: the chat story on the real API server, Redis and helm, through the one execution
 * path the bot and the terminal share (parse → prepare → apply intent; the controller acts).
 */
describe('/release: rollback holds until resume; freeze and unfreeze', () => {
  const { env, kubeConfig } = testEnv();
  const { namespace, ctl } = namespaceWithController('chat');
  const { kube, api, storage, ops } = releaseOperations(makeKubeClients(kubeConfig), createLogger('test', 'warn'), 'helmcrew-test');
  const alice = { id: 'slack:UALICE', channel: 'C0INCIDENT' };
  const unicorn = `${namespace}/unicorn`;

  const declare = (name: string, version: string, extra: Partial<HelmRelease['spec']> = {}) =>
    applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, name, { chart: { repository: env.chartRepoUrl, name: 'unicorn', version }, timeout: '90s', interval: '1s', ...extra }),
    );
  const command = (text: string): MutatingCommand => {
    const parsed = parseReleaseCommand(text);
    if (!parsed.ok || !isMutating(parsed.command)) throw new Error(`not a mutating command: ${text}`);
    return parsed.command;
  };
  const run = async (text: string) => {
    const prepared = await ops.prepare(command(text), alice);
    if (!prepared.ok) throw new Error(prepared.message);
    const applied = await ops.apply(prepared.action, alice);
    const outcomes = await awaitOutcomes(api, prepared.action, applied.requestId, 120_000);
    return { plan: prepared.action.plan, applied, outcomes, freeze: prepared.action.freeze?.metadata.name };
  };
  const kubectl = (...args: string[]) => execa(env.kubectlBin, ['--kubeconfig', env.kubeconfig, '-n', namespace, ...args], { reject: false });
  const get = async (name = 'unicorn') => (await api.get(namespace, name))!;
  const condition = (release: HelmRelease, type: string) => release.status?.conditions?.find((c) => c.type === type);

  it.each([
    { version: '1.0.0', color: 'pink' },
    { version: '2.0.0', color: 'blue' },
    { version: '3.0.0', color: 'green' },
  ])('by spec: $version serves $color', async ({ version, color }) => {
    await waitForReconciled(kubeConfig, namespace, 'unicorn', await declare('unicorn', version));
    expect(await servedColor(kubeConfig, namespace, 'unicorn')).toBe(color);
  });

  it('rollback: the plan says 3 → 2, then blue is deployed and the release is suspended, as recorded', async () => {
    const { plan, outcomes } = await run(`rollback ${unicorn} --reason "green breaks checkout"`);
    expect(plan.title).toBe(`roll back ${unicorn}: revision 3 → 2`);
    expect(plan.lines[0]).toBe('revision 3 (unicorn 3.0.0, app 3.0.0) → revision 2 (unicorn 2.0.0, app 2.0.0)');
    expect(outcomes).toEqual([expect.objectContaining({ done: true, succeeded: true })]);
    expect(await servedColor(kubeConfig, namespace, 'unicorn')).toBe('blue');
    const history = await storage.history(namespace, 'unicorn');
    expect(history.deployed).toMatchObject({ revision: 4, chartVersion: '2.0.0' });
    const release = await get();
    expect(release.spec.suspend).toBe(true);
    expect(release.spec.chart.version).toBe('3.0.0');
    expect(release.status?.suspension).toMatchObject({ by: 'slack:UALICE', channel: 'C0INCIDENT', reason: 'green breaks checkout' });
    expect(release.status?.rollback).toMatchObject({ succeeded: true, fromRevision: 3, toRevision: 2, revision: 4 });
    expect(condition(release, 'Suspended')).toMatchObject({
      status: 'True',
      message: expect.stringMatching(/^Suspended by slack:UALICE in C0INCIDENT .*: green breaks checkout$/),
    });
    expect(condition(release, 'Ready')).toMatchObject({ status: 'True', reason: 'RollbackSucceeded' });
    expect(await ctl.helm.count('rollback')).toBe(1);

    const waited = await kubectl('wait', '--for=condition=Suspended', 'hcr/unicorn', '--timeout=10s');
    expect(waited.exitCode, waited.stderr).toBe(0);
    const table = await kubectl('get', 'hcr');
    expect(table.stdout).toMatch(/unicorn\s+True\s+True\s+Rolled back revision 3/);
    const events = await kubeConfig.makeApiClient(CoreV1Api).listNamespacedEvent({ namespace, fieldSelector: 'involvedObject.name=unicorn' });
    const seen = events.items.map((e) => `${e.type} ${e.reason}`);
    expect(seen).toEqual(expect.arrayContaining(['Normal ActionRequested', 'Normal RollbackSucceeded']));
    expect(events.items.find((e) => e.reason === 'ActionRequested')?.message).toBe(
      `slack:UALICE in C0INCIDENT asked for the rollback of ${unicorn} to the previous revision: green breaks checkout`,
    );
  });

  it('the controller leaves it there through resyncs and a restart, and writes nothing more', async () => {
    const before = (await ctl.helm.invocations()).filter((a) => ['upgrade', 'rollback', 'install'].includes(a[0]!)).length;
    // The rollback recorded the suspension; a pass must see it as recorded (the API server
    // returns status.suspension with its keys sorted), not record it again with a new Event.
    const recorded = (await get()).metadata.resourceVersion;
    await new Promise((resolve) => setTimeout(resolve, 3000)); // interval 1s: three resync periods
    expect((await ctl.helm.invocations()).filter((a) => ['upgrade', 'rollback', 'install'].includes(a[0]!)).length).toBe(before);
    await ctl.stop();
    await ctl.start();
    // Proves that nothing happens: no helm starts.
    await new Promise((resolve) => setTimeout(resolve, 4000));
    expect(await ctl.helm.count('upgrade')).toBe(0);
    expect(await ctl.helm.count('rollback')).toBe(0);
    expect(await servedColor(kubeConfig, namespace, 'unicorn')).toBe('blue');
    expect((await storage.history(namespace, 'unicorn')).deployed?.revision).toBe(4);
    expect((await get()).metadata.resourceVersion).toBe(recorded);
    const events = await kubeConfig.makeApiClient(CoreV1Api).listNamespacedEvent({ namespace, fieldSelector: 'involvedObject.name=unicorn' });
    expect(events.items.map((e) => e.reason)).not.toContain('Suspended');
  });

  it('resume: back to the declared spec, green again; Suspended is gone', async () => {
    const { plan, outcomes } = await run(`resume ${unicorn}`);
    expect(plan.lines).toContain('the controller will upgrade 2.0.0 → 3.0.0');
    expect(outcomes).toEqual([expect.objectContaining({ done: true, succeeded: true })]);
    expect(await servedColor(kubeConfig, namespace, 'unicorn')).toBe('green');
    const release = await get();
    expect(condition(release, 'Suspended')).toBeUndefined();
    expect(release.status?.suspension).toBeUndefined();
    expect((await storage.history(namespace, 'unicorn')).deployed).toMatchObject({ revision: 5, chartVersion: '3.0.0' });
  });

  it('the terminal does the same: helmcrew release rollback, then resume', async () => {
    const cli = (...args: string[]) =>
      runHelmcrewCli(['release', ...args], {
        env: { KUBECONFIG: env.kubeconfig, LOG_LEVEL: 'warn' },
        input: 'y\n',
        timeout: 150_000,
      });
    const rollback = await cli('rollback', unicorn, '--reason', 'from the terminal');
    expect(rollback.exitCode, rollback.stderr).toBe(0);
    expect(rollback.stdout).toMatch(/roll back .*: revision 5 → 4/);
    // The plan says what changes back, not only where: the page, green → blue.
    expect(rollback.stdout).toMatch(/~ ConfigMap \S*unicorn-page\n\s+data\["index\.html"\] \(\d+ lines → \d+ lines\):\n\s+line \d+: .*green.* → .*blue/);
    expect(rollback.stdout).toMatch(/Rolled back revision 5 \(unicorn@3\.0\.0\) → revision 4 \(unicorn@2\.0\.0\), now revision 6/);
    expect(await servedColor(kubeConfig, namespace, 'unicorn')).toBe('blue');
    const release = await get();
    expect(release.spec.suspend).toBe(true);
    expect(release.status?.suspension?.by).toMatch(/^kube:/);

    const resume = await cli('resume', unicorn);
    expect(resume.exitCode, resume.stderr).toBe(0);
    expect(await servedColor(kubeConfig, namespace, 'unicorn')).toBe('green');
  });

  it('freeze holds the namespace without touching the releases; unfreeze lets the held change through and leaves a suspension alone', async () => {
    await waitForReconciled(kubeConfig, namespace, 'dragon', await declare('dragon', '1.0.0'));
    // held by someone before the freeze: must stay suspended after unfreeze
    await waitForReconciled(kubeConfig, namespace, 'held', await declare('held', '1.0.0'));
    await declare('held', '1.0.0', { suspend: true });

    const frozen = await run(`freeze ${namespace} --reason "Black Friday"`);
    expect(frozen.plan.lines[1]).toBe(`covers 3 releases now: ${namespace}/dragon, ${namespace}/held, ${namespace}/unicorn`);
    expect(frozen.outcomes).toEqual([]);
    const [dragon, held] = [await get('dragon'), await get('held')];
    // A freeze is its own object: no release is patched or suspended by it.
    expect(dragon.spec.suspend).toBeFalsy();
    expect(held.spec.suspend).toBe(true);

    // a spec change while frozen is not acted on
    const upgrades = await ctl.helm.count('upgrade');
    await declare('dragon', '2.0.0');
    // Proves that nothing happens: no helm starts.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(await ctl.helm.count('upgrade')).toBe(upgrades);
    expect(await servedColor(kubeConfig, namespace, 'dragon')).toBe('pink');
    expect(condition(await get('dragon'), 'Frozen')).toMatchObject({ status: 'True', message: expect.stringContaining(`freeze ${frozen.freeze}`) as unknown });

    const unfrozen = await run(`unfreeze ${frozen.freeze}`);
    expect(unfrozen.plan.lines[1]).toBe(`the controller goes on with 1 held release at once: ${namespace}/dragon`);
    // Held reads as reconciled (Ready=False, Frozen) at that generation: wait for the upgrade's outcome.
    await waitForReadyReason(kubeConfig, namespace, 'dragon', 'UpgradeSucceeded', 30_000);
    expect(await servedColor(kubeConfig, namespace, 'dragon')).toBe('blue');
    expect(condition(await get('dragon'), 'Frozen')).toBeUndefined();
    expect((await get('held')).spec.suspend).toBe(true);
  });

  it('upgrade patches spec.chart.version, and the plan warns when a GitOps tool owns the object', async () => {
    const body = { metadata: { labels: { 'kustomize.toolkit.fluxcd.io/name': 'apps' } } };
    await kube.custom.patchNamespacedCustomObject(
      { group: API_GROUP, version: API_VERSION, plural: HELMRELEASE_PLURAL, namespace, name: 'dragon', body },
      mergePatch,
    );
    const { plan, outcomes } = await run(`upgrade ${namespace}/dragon 3.0.0 --reason hotfix`);
    expect(plan.lines[0]).toBe('spec.chart.version: 2.0.0 → 3.0.0');
    expect(plan.warnings).toEqual([
      expect.stringMatching(/^Flux \(kustomize-controller\) manages this HelmRelease: its next sync will put back what Git says/),
    ]);
    expect(outcomes).toEqual([expect.objectContaining({ done: true, succeeded: true })]);
    expect((await get('dragon')).spec.chart.version).toBe('3.0.0');
    expect(await servedColor(kubeConfig, namespace, 'dragon')).toBe('green');
  });

  it('after a failed upgrade, rollback re-applies the last good revision and repairs the half-applied page', async () => {
    const failed = await waitForReconciled(kubeConfig, namespace, 'dragon', await declare('dragon', '4.0.0'));
    expect(condition(failed, 'Ready')).toMatchObject({ status: 'False', reason: 'UpgradeFailed' });
    expect(await servedColor(kubeConfig, namespace, 'dragon')).toBe('gold'); // the broken version's page went in before its Deployment was refused
    const { plan, outcomes } = await run(`rollback ${namespace}/dragon`);
    expect(plan.title).toBe(`roll back ${namespace}/dragon: revision 4 → 3`);
    expect(outcomes).toEqual([expect.objectContaining({ done: true, succeeded: true })]);
    expect(await servedColor(kubeConfig, namespace, 'dragon')).toBe('green');
    expect((await storage.history(namespace, 'dragon')).deployed).toMatchObject({ revision: 5, chartVersion: '3.0.0' });
    expect((await get('dragon')).spec.suspend).toBe(true);
  });
});
