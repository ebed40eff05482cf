import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { API_GROUP, API_VERSION, TEAM_PLURAL } from '../../src/api/vocabulary.js';
import { releaseOperations } from '../../src/session/execute/wiring.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { isMutating, type MutatingCommand } from '../../src/session/grammar/command.js';
import { parseReleaseCommand } from '../../src/session/grammar/parse.js';
import { renderFreezes } from '../../src/session/render/freezes.js';
import { createLogger } from '../../src/core/log.js';
import { isReconciledAt } from '../../src/core/release/reconciled.js';
import { pollUntil } from '../../src/dev/harness/poll.js';
import { applyHelmRelease, helmReleaseObject, servedColor, waitForReconciled } from '../../src/dev/releases.js';
import { namespaceWithController, testEnv, uniqueName } from '../support/fixtures.js';
import { runHelmcrewCli } from '../support/helmcrew-cli.js';

/**
 * Issue 22: a freeze is an object the controller honours, on the real API server, Redis and helm.
 * Freezes are made through the one execution path the bot and the terminal share (parse →
 * prepare → apply), and spec changes come as Git would make them: server-side apply under
 * another field manager.
 */
describe('Freeze: the controller holds every helm action while a freeze covers the release', () => {
  const { env, kubeConfig } = testEnv();
  const { namespace, ctl } = namespaceWithController('freeze');
  const kube = makeKubeClients(kubeConfig);
  const { api, freezes, ops } = releaseOperations(kube, createLogger('test', 'warn'), 'helmcrew-test');
  const alice = { id: 'slack:UALICE', channel: 'C0INCIDENT' };
  const team = uniqueName('frontend');
  const spec = (version: string) => ({ chart: { repository: env.chartRepoUrl, name: 'unicorn', version }, timeout: '90s', interval: '1s' });

  const command = (text: string): MutatingCommand => {
    const parsed = parseReleaseCommand(text);
    if (!parsed.ok || !isMutating(parsed.command)) throw new Error(`not a mutating command: ${text} (${parsed.ok ? '' : parsed.error.message})`);
    return parsed.command;
  };
  const run = async (text: string) => {
    const prepared = await ops.prepare(command(text), alice);
    if (!prepared.ok) throw new Error(prepared.message);
    const applied = await ops.apply(prepared.action, alice);
    return { plan: prepared.action.plan, applied, name: prepared.action.freeze?.metadata.name ?? '' };
  };
  /** What Git does: server-side apply of the whole object under a GitOps tool's field manager. */
  const gitApply = async (name: string, version: string) => {
    const file = join(tmpdir(), `${uniqueName('hr')}.json`);
    await writeFile(file, JSON.stringify(helmReleaseObject(namespace, name, spec(version))));
    const applied = await execa(
      env.kubectlBin,
      ['--kubeconfig', env.kubeconfig, 'apply', '--server-side', '--force-conflicts', '--field-manager=kustomize-controller', '-f', file],
      {
        reject: false,
      },
    );
    expect(applied.exitCode, applied.stderr).toBe(0);
    return (await api.get(namespace, name))!.metadata.generation!;
  };
  const condition = (release: HelmRelease | undefined, type: string) => release?.status?.conditions?.find((c) => c.type === type);
  /** Waits until the release says Frozen=True for `generation`; returns the condition. */
  const frozenAt = async (name: string, generation: number) =>
    pollUntil(
      async () => {
        const frozen = condition(await api.get(namespace, name), 'Frozen');
        return frozen?.status === 'True' && frozen.observedGeneration === generation ? frozen : undefined;
      },
      { timeoutMs: 30_000 },
      () => `${namespace}/${name} never showed Frozen at generation ${generation}`,
    );
  /** Waits until the controller applied `generation` (a held release reads as reconciled too, Ready=False Frozen). */
  const appliedAt = async (name: string, generation: number) =>
    pollUntil(
      async () => {
        const release = await api.get(namespace, name);
        const ready = condition(release, 'Ready');
        return release && isReconciledAt(release, generation) && ready?.reason !== 'Frozen' ? release : undefined;
      },
      { timeoutMs: 30_000 },
      () => `${namespace}/${name} generation ${generation} was not applied within 30s`,
    );
  const frozenEvents = async (name: string) =>
    (await kubeConfig.makeApiClient(CoreV1Api).listNamespacedEvent({ namespace, fieldSelector: `involvedObject.name=${name},reason=Frozen` })).items;
  const helmRuns = async () => (await ctl.helm.invocations()).filter((a) => ['install', 'upgrade', 'rollback', 'uninstall', 'test'].includes(a[0]!)).length;

  beforeAll(async () => {
    await kube.custom.createClusterCustomObject({
      group: API_GROUP,
      version: API_VERSION,
      plural: TEAM_PLURAL,
      body: { apiVersion: `${API_GROUP}/${API_VERSION}`, kind: 'Team', metadata: { name: team }, spec: { subscriptions: [{ namespaces: [namespace] }] } },
    });
    await waitForReconciled(kubeConfig, namespace, 'existing', await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'existing', spec('1.0.0'))));
  });
  afterAll(async () => {
    for (const freeze of (await freezes.list()).items) if (freeze.spec.reason.includes(namespace)) await freezes.delete(freeze.metadata.name);
    await kube.custom.deleteClusterCustomObject({ group: API_GROUP, version: API_VERSION, plural: TEAM_PLURAL, name: team }).catch(() => undefined);
  });

  it("a freeze on a Team's namespaces: a new release is not installed, a Git change is not applied; lifting it does both within seconds", async () => {
    const { plan, name, applied } = await run(`freeze team:${team} --reason "INC-4242 in ${namespace}"`);
    expect(plan.lines).toContain(`covers 1 release now: ${namespace}/existing`);
    expect(applied.summary).toMatch(new RegExp(`^Freeze ${name} holds team ${team} until lifted`));
    expect(renderFreezes((await freezes.list()).items, new Date())).toMatch(new RegExp(`${name}  ACTIVE  team ${team} until lifted by slack:UALICE: INC-4242`));
    const before = await helmRuns();

    const fresh = await gitApply('fresh', '2.0.0');
    const changed = await gitApply('existing', '2.0.0');
    const [freshFrozen, existingFrozen] = await Promise.all([frozenAt('fresh', fresh), frozenAt('existing', changed)]);
    expect(freshFrozen.message).toBe(
      `The install is held by freeze ${name} (INC-4242 in ${namespace}, set by slack:UALICE); the spec is kept and applied when no freeze holds it`,
    );
    expect(existingFrozen.message).toMatch(new RegExp(`^The upgrade is held by freeze ${name} `));
    expect(condition(await api.get(namespace, 'fresh'), 'Ready')).toMatchObject({ status: 'False', reason: 'Frozen' });

    // Held through several resyncs (interval 1s): nothing runs, the spec stays, one Event each.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(await helmRuns()).toBe(before);
    expect(await servedColor(kubeConfig, namespace, 'existing')).toBe('pink');
    expect((await api.get(namespace, 'existing'))!.spec.chart.version).toBe('2.0.0');
    expect((await frozenEvents('fresh')).length).toBe(1);
    expect((await frozenEvents('existing')).length).toBe(1);

    const lifted = Date.now();
    const unfreeze = await run(`unfreeze ${name}`);
    expect(unfreeze.plan.lines[1]).toBe(`the controller goes on with 2 held releases at once: ${namespace}/existing, ${namespace}/fresh`);
    const [existing, installed] = await Promise.all([appliedAt('existing', changed), appliedAt('fresh', fresh)]);
    const tookMs = Date.now() - lifted;
    expect(condition(existing, 'Ready')).toMatchObject({ status: 'True', reason: 'UpgradeSucceeded' });
    expect(condition(installed, 'Ready')).toMatchObject({ status: 'True', reason: 'InstallSucceeded' });
    expect(condition(existing, 'Frozen')).toBeUndefined();
    expect(await servedColor(kubeConfig, namespace, 'existing')).toBe('blue');
    expect(tookMs).toBeLessThan(15_000);
  });

  it('two overlapping freezes: lifting one keeps the release held by the other', async () => {
    const byNamespace = await run(`freeze ${namespace} --reason "sale in ${namespace}"`);
    const byTeam = await run(`freeze team:${team} --reason "INC-7 in ${namespace}"`);
    const generation = await gitApply('existing', '3.0.0');
    await pollUntil(
      async () => {
        const frozen = await frozenAt('existing', generation);
        return frozen.message.includes(byNamespace.name) && frozen.message.includes(byTeam.name) ? frozen : undefined;
      },
      { timeoutMs: 30_000 },
      () => 'the Frozen message never named both freezes',
    );
    const before = await helmRuns();

    const first = await run(`unfreeze ${byNamespace.name}`);
    expect(first.plan.lines[1]).toBe('no release is held by it alone');
    expect(first.plan.lines).toContain(`${namespace}/existing stays held by ${byTeam.name}`);
    await pollUntil(
      async () => {
        const frozen = condition(await api.get(namespace, 'existing'), 'Frozen');
        return frozen?.status === 'True' && !frozen.message.includes(byNamespace.name) ? true : undefined;
      },
      { timeoutMs: 15_000 },
      () => 'the Frozen message still names the lifted freeze',
    );
    // Proves that nothing happens: the other freeze still holds it through more checks.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(await helmRuns()).toBe(before);
    expect(await servedColor(kubeConfig, namespace, 'existing')).toBe('blue');

    await run(`unfreeze ${byTeam.name}`);
    await appliedAt('existing', generation);
    expect(await servedColor(kubeConfig, namespace, 'existing')).toBe('green');
  });

  it('a freeze --for 5s ends by itself and its held release proceeds, with nobody touching it', async () => {
    const set = Date.now();
    const { name } = await run(`freeze ${namespace} --reason "short one in ${namespace}" --for 5s`);
    const freeze = await freezes.get(name);
    expect(Date.parse(freeze!.spec.until!) - set).toBeGreaterThanOrEqual(4000);
    const generation = await gitApply('existing', '1.0.0');
    await frozenAt('existing', generation);
    const done = await appliedAt('existing', generation);
    const upgradedAt = Date.now();
    expect(condition(done, 'Ready')).toMatchObject({ status: 'True', reason: 'UpgradeSucceeded' });
    expect(upgradedAt - set).toBeGreaterThanOrEqual(4500);
    expect(await servedColor(kubeConfig, namespace, 'existing')).toBe('pink');
    expect(await freezes.get(name)).toBeDefined(); // it ended; nobody deleted it
  });

  it('deleting a HelmRelease under a freeze does not uninstall it until the freeze ends', async () => {
    const { name } = await run(`freeze ${namespace} --reason "no deletes in ${namespace}"`);
    await api.get(namespace, 'fresh');
    await kube.custom.deleteNamespacedCustomObject({ group: API_GROUP, version: API_VERSION, plural: 'helmreleases', namespace, name: 'fresh' });
    const held = await pollUntil(
      async () => {
        const frozen = condition(await api.get(namespace, 'fresh'), 'Frozen');
        return frozen?.status === 'True' && frozen.message.startsWith('The uninstall is held') ? frozen : undefined;
      },
      { timeoutMs: 30_000 },
      () => 'the uninstall was never held',
    );
    expect(held.message).toContain(name);
    expect(await servedColor(kubeConfig, namespace, 'fresh')).toBe('blue');
    await run(`unfreeze ${name}`);
    await pollUntil(
      async () => ((await api.get(namespace, 'fresh')) ? undefined : true),
      { timeoutMs: 30_000 },
      () => 'fresh was never uninstalled',
    );
  });

  it('the terminal does the same: helmcrew release freeze --yes, freezes, unfreeze; break-glass is refused there', async () => {
    const cli = (...args: string[]) => runHelmcrewCli(['release', ...args], { env: { KUBECONFIG: env.kubeconfig, LOG_LEVEL: 'warn' }, timeout: 120_000 });
    const set = await cli('freeze', namespace, '--reason', `terminal freeze in ${namespace}`, '--for', '1h', '--yes');
    expect(set.exitCode, set.stderr).toBe(0);
    const name = /Freeze (\S+) holds namespace/.exec(set.stdout)?.[1];
    expect(name, set.stdout).toBeDefined();
    expect(set.stdout).toMatch(new RegExp(`holds namespace ${namespace} until \\d{4}-\\d{2}-\\d{2}T`));
    expect((await freezes.get(name!))?.spec.setBy).toMatch(/^kube:/);

    const listed = await cli('freezes');
    expect(listed.stdout).toMatch(new RegExp(`^${name}  ACTIVE  namespace ${namespace} until `, 'm'));
    const glass = await cli('upgrade', `${namespace}/existing`, '2.0.0', '--break-glass', '--yes');
    expect(glass.exitCode).toBe(2);
    expect(glass.stderr).toBe('helmcrew release: --break-glass needs a second person to approve; ask for it with /release in Slack');

    const lifted = await cli('unfreeze', name!, '--yes');
    expect(lifted.exitCode, lifted.stderr).toBe(0);
    expect(lifted.stdout).toContain(`Freeze ${name} lifted`);
    expect(await freezes.get(name!)).toBeUndefined();
  });
});
