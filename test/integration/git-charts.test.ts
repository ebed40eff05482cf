import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppsV1Api, CoreV1Api } from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GitChartSource, HelmReleaseSpec } from '../../src/api/helmrelease.js';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { startGitHttpServer, startGitSshServer, type GitHttpServer, type GitSshServer } from '../../src/dev/git-server.js';
import { applyHelmRelease, helmReleaseObject, servedColor, waitForReconciled } from '../../src/dev/releases.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { waitForReadyCondition } from '../support/eventually.js';
import { namespaceWithController, testEnv, uniqueName } from '../support/fixtures.js';
import { createChartGitRepo, type ChartGitRepo } from '../../src/dev/git-repos.js';

/** Issue 24: charts from Git, over smart HTTP with basic auth and over SSH with a key and known_hosts. */
describe('charts from Git', () => {
  const { kubeConfig } = testEnv();
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const apps = kubeConfig.makeApiClient(AppsV1Api);
  const storage = new ReleaseStorage(makeKubeClients(kubeConfig));
  const logFile = join(tmpdir(), `${uniqueName('helmcrew-git-log')}.jsonl`);
  const log = pino({ level: 'debug', base: { component: 'controller' } }, pino.destination({ dest: logFile, sync: true }));
  const { namespace } = namespaceWithController('git', {}, log);
  const login = { username: 'charts', password: 'Git-Sesame-4-Charts' };
  let root = '';
  let repo: ChartGitRepo;
  let http: GitHttpServer;
  let ssh: GitSshServer;

  const declare = (name: string, git: GitChartSource, interval = '10m') =>
    applyHelmRelease(kubeConfig, helmReleaseObject(namespace, name, { chart: { name: 'unicorn', git }, interval, timeout: '60s' }));
  const secret = (name: string, stringData: Record<string, string>) => core.createNamespacedSecret({ namespace, body: { metadata: { name }, stringData } });
  const httpUrl = () => `${http.url}/charts.git`;
  const statusOf = async (name: string) => (await new HelmReleaseApi(makeKubeClients(kubeConfig)).get(namespace, name))?.status;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'helmcrew-git-'));
    repo = await createChartGitRepo(root, 'charts', '1.0.0', 'pink');
    await repo.tag('v1.0.0', true);
    http = await startGitHttpServer(root, { basicAuth: login });
    ssh = await startGitSshServer(root);
    await secret('git-login', login);
    await secret('git-wrong', { ...login, password: 'Not-The-Git-Password' });
    await secret('git-key', { identity: ssh.identity, known_hosts: ssh.knownHosts });
    await secret('git-other-key', { identity: ssh.otherIdentity, known_hosts: ssh.knownHosts });
  });
  afterAll(async () => {
    await http?.stop();
    await ssh?.stop();
  });

  it('installs a chart from a branch over HTTPS-style basic auth; status shows the version plus the commit', async () => {
    const generation = await declare('branch', { url: httpUrl(), ref: { branch: 'main' }, path: 'charts/unicorn', secretRef: { name: 'git-login' } });
    const done = await waitForReconciled(kubeConfig, namespace, 'branch', generation);
    const head = (await import('execa')).execa;
    const commit = (await head('git', ['--git-dir', repo.bare, 'rev-parse', 'main'])).stdout.trim();
    expect(done.status?.lastAttemptedRevision).toBe(`1.0.0+${commit.slice(0, 7)}`);
    expect(done.status?.lastAttemptedChartDigest).toBe(`git:${commit}`);
    expect((await storage.history(namespace, 'branch')).deployed).toMatchObject({ chartVersion: '1.0.0', status: 'deployed' });
    expect(await servedColor(kubeConfig, namespace, 'branch')).toBe('pink');
  });

  it('a new commit on the branch upgrades within one interval', async () => {
    await declare('follow', { url: httpUrl(), ref: { branch: 'main' }, path: 'charts/unicorn', secretRef: { name: 'git-login' } }, '3s');
    await waitForReconciled(kubeConfig, namespace, 'follow', 1);
    const pushed = Date.now();
    const commit = await repo.commit('1.1.0', 'blue');
    await expect.poll(async () => (await statusOf('follow'))?.history?.[0]?.chartVersion, { timeout: 60_000, interval: 250 }).toBe('1.1.0');
    expect((await statusOf('follow'))?.lastAttemptedRevision).toBe(`1.1.0+${commit.slice(0, 7)}`);
    expect(await servedColor(kubeConfig, namespace, 'follow')).toBe('blue');
    // One interval (3 s) plus the upgrade itself on a loaded machine.
    expect(Date.now() - pushed).toBeLessThan(45_000);
  });

  it('a semver range picks the newest matching tag, and a new matching tag upgrades', async () => {
    await repo.commit('1.2.0', 'green');
    await repo.tag('v1.2.0');
    await repo.commit('2.0.0', 'gold');
    await repo.tag('v2.0.0', true);
    await declare('range', { url: httpUrl(), ref: { semver: '1.x' }, path: 'charts/unicorn', secretRef: { name: 'git-login' } }, '3s');
    await waitForReconciled(kubeConfig, namespace, 'range', 1);
    // The refs are one answer per repository per interval, shared with the releases above: tags
    // pushed within the last interval are seen at the next check, one interval (3 s) later at most.
    await expect.poll(async () => (await storage.history(namespace, 'range')).deployed?.chartVersion, { timeout: 60_000, interval: 250 }).toBe('1.2.0');
    expect(await servedColor(kubeConfig, namespace, 'range')).toBe('green');
    await repo.commit('1.3.0', 'blue');
    await repo.tag('1.3.0', true);
    await expect.poll(async () => (await storage.history(namespace, 'range')).deployed?.chartVersion, { timeout: 60_000, interval: 250 }).toBe('1.3.0');
  });

  it('post-renderers (a patch, an image override) and common labels are on the live objects, as with a repository chart; a change upgrades', async () => {
    // Issue 31: a Git chart installed Ready=True with none of the three on its objects.
    const tolerations =
      '- op: add\n  path: /spec/template/spec/tolerations\n  value: [{ key: dedicated, operator: Equal, value: unicorns, effect: NoSchedule }]\n';
    const addSetting = '- op: add\n  path: /data/mirrored\n  value: "yes"\n';
    const spec = (costCenter: string): HelmReleaseSpec => ({
      chart: { name: 'unicorn', git: { url: httpUrl(), ref: { tag: 'v1.0.0' }, path: 'charts/unicorn', secretRef: { name: 'git-login' } } },
      interval: '10m',
      timeout: '60s',
      // No pod: the overridden image is not pulled.
      values: { replicaCount: 0 },
      postRenderers: [
        {
          kustomize: {
            patches: [
              { patch: tolerations, target: { kind: 'Deployment' } },
              { patch: addSetting, target: { kind: 'ConfigMap', name: 'rendered-page' } },
            ],
            images: [{ name: 'nginxinc/nginx-unprivileged', newName: 'mirror.local/team/unicorn', newTag: '1.27-patched' }],
          },
        },
      ],
      commonMetadata: { labels: { 'cost-center': costCenter } },
    });
    const name = 'rendered';
    const installed = await waitForReconciled(
      kubeConfig,
      namespace,
      name,
      await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, name, spec('cc-1'))),
    );
    expect(installed.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True' });
    const deployment = await apps.readNamespacedDeployment({ namespace, name });
    expect(deployment.spec?.template.spec?.containers[0]?.image).toBe('mirror.local/team/unicorn:1.27-patched');
    expect(deployment.spec?.template.spec?.tolerations).toEqual([{ key: 'dedicated', operator: 'Equal', value: 'unicorns', effect: 'NoSchedule' }]);
    expect(deployment.metadata?.labels).toMatchObject({ 'cost-center': 'cc-1', 'app.kubernetes.io/instance': name });
    // Flux's common metadata is the objects' own: the selector keeps the chart's labels.
    expect(deployment.spec?.selector.matchLabels).not.toHaveProperty('cost-center');
    const page = await core.readNamespacedConfigMap({ namespace, name: `${name}-page` });
    expect(page.data).toMatchObject({ mirrored: 'yes' });
    expect(page.metadata?.labels).toMatchObject({ 'cost-center': 'cc-1' });

    // Same commit, same values: only the common metadata changes, and that is an upgrade.
    const relabelled = await waitForReconciled(
      kubeConfig,
      namespace,
      name,
      await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, name, spec('cc-2'))),
    );
    expect(relabelled.status?.history?.map((h) => [h.revision, h.status])).toEqual([
      [2, 'deployed'],
      [1, 'superseded'],
    ]);
    expect((await apps.readNamespacedDeployment({ namespace, name })).metadata?.labels).toMatchObject({ 'cost-center': 'cc-2' });
  });

  it('wrong credentials: Ready=False naming the repository and the Secret; the password is in no status, Event or log line', async () => {
    await declare('wrong', { url: httpUrl(), path: 'charts/unicorn', secretRef: { name: 'git-wrong' } });
    const ready = await waitForReadyCondition(kubeConfig, namespace, 'wrong', 'ChartPullFailed');
    expect(ready.message).toBe(`Git repository ${httpUrl()} refused the credentials in Secret ${namespace}/git-wrong (spec.chart.git.secretRef)`);
    const events = (await core.listNamespacedEvent({ namespace })).items;
    const everything = [JSON.stringify(await statusOf('wrong')), JSON.stringify(events), await readFile(logFile, 'utf8')].join('\n');
    for (const leak of ['Not-The-Git-Password', login.password, Buffer.from(`charts:Not-The-Git-Password`).toString('base64')])
      expect(everything).not.toContain(leak);
    expect(everything).not.toContain(ssh.identity.split('\n')[1]);
  });

  it('a path without Chart.yaml and a ref that does not exist: clear reasons naming the repository', async () => {
    await declare('no-chart', { url: httpUrl(), path: 'charts', secretRef: { name: 'git-login' } });
    expect((await waitForReadyCondition(kubeConfig, namespace, 'no-chart', 'ChartPullFailed')).message).toMatch(
      new RegExp(
        `^Git repository ${httpUrl()} at HEAD \\(the default branch\\) \\(commit [0-9a-f]{7}\\) has no Chart.yaml in charts \\(spec.chart.git.path\\)$`,
      ),
    );
    await declare('no-branch', { url: httpUrl(), ref: { branch: 'nope' }, path: 'charts/unicorn', secretRef: { name: 'git-login' } });
    expect((await waitForReadyCondition(kubeConfig, namespace, 'no-branch', 'ChartPullFailed')).message).toBe(`Git repository ${httpUrl()} has no branch nope`);
    await declare('unreachable', { url: 'http://127.0.0.1:9/charts.git', path: 'charts/unicorn' });
    expect((await waitForReadyCondition(kubeConfig, namespace, 'unreachable', 'ChartPullFailed')).message).toBe(
      'could not read the Git repository http://127.0.0.1:9/charts.git',
    );
  });

  it('over SSH with a key and known_hosts; another key or a wrong host key is refused with a clear reason', async () => {
    const url = `${ssh.url}${root}/charts.git`;
    const shown = url.replace(/\/\/[^@]*@/, '//');
    const generation = await declare('ssh', { url, ref: { tag: 'v1.0.0' }, path: 'charts/unicorn', secretRef: { name: 'git-key' } });
    await waitForReconciled(kubeConfig, namespace, 'ssh', generation);
    expect((await storage.history(namespace, 'ssh')).deployed?.chartVersion).toBe('1.0.0');
    await declare('ssh-other', { url, path: 'charts/unicorn', secretRef: { name: 'git-other-key' } });
    expect((await waitForReadyCondition(kubeConfig, namespace, 'ssh-other', 'ChartPullFailed')).message).toBe(
      `Git repository ${shown} refused the credentials in Secret ${namespace}/git-other-key (spec.chart.git.secretRef)`,
    );
    await secret('git-wrong-host', { identity: ssh.identity, known_hosts: `[127.0.0.1]:${ssh.port} ${ssh.otherPublicKey}\n` });
    await declare('ssh-host', { url, path: 'charts/unicorn', secretRef: { name: 'git-wrong-host' } });
    expect((await waitForReadyCondition(kubeConfig, namespace, 'ssh-host', 'ChartPullFailed')).message).toBe(
      `the SSH host key of ${shown} does not match known_hosts in Secret ${namespace}/git-wrong-host (spec.chart.git.secretRef): host key verification failed`,
    );
    const logs = await readFile(logFile, 'utf8');
    for (const line of ssh.identity.split('\n').filter((l) => l.length > 20 && !l.startsWith('-----'))) expect(logs).not.toContain(line);
  });
});
