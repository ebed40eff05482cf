import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { execa } from 'execa';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GitChartSource } from '../../src/api/helmrelease.js';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { startGitHttpServer, type GitHttpServer } from '../../src/dev/git-server.js';
import { applyHelmRelease, helmReleaseObject, servedColor, waitForReconciled } from '../../src/dev/releases.js';
import { chartFolder, startTestChartServer, type TestChartServer } from '../support/chart-servers.js';
import { waitForReadyCondition } from '../support/eventually.js';
import { namespaceWithController, testEnv, uniqueName } from '../support/fixtures.js';
import { pushUnicorn, registryLogin, registryPath } from '../support/oci.js';

/**
 * Issue 34: a Git chart whose Chart.yaml declares dependencies (from an http(s) repository behind
 * basic auth, from an oci:// registry behind a login) gets them: `helm dependency build` once per
 * commit, with the credentials spec.chart.git.dependencies names, never in argv, status or logs.
 */
describe('Git charts with dependencies', () => {
  const { env, kubeConfig } = testEnv();
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const storage = new ReleaseStorage(makeKubeClients(kubeConfig));
  const logFile = join(tmpdir(), `${uniqueName('helmcrew-gitdeps-log')}.jsonl`);
  const log = pino({ level: 'debug', base: { component: 'controller' } }, pino.destination({ dest: logFile, sync: true }));
  const { namespace, ctl } = namespaceWithController('gitdeps', {}, log);
  const repoLogin = { username: 'deps', password: 'Dependency-Sesame-77' };
  let chartServer: TestChartServer;
  let git: GitHttpServer;
  let ociRepository = '';
  let registrySecret = '';

  const url = () => `${git.url}/umbrella.git`;
  const source = (path: string, dependencies: GitChartSource['dependencies']): GitChartSource => ({ url: url(), ref: { branch: 'main' }, path, dependencies });
  const declare = (name: string, chart: string, git: GitChartSource) =>
    applyHelmRelease(kubeConfig, helmReleaseObject(namespace, name, { chart: { name: chart, git }, interval: '10m', timeout: '60s' }));
  const secret = (name: string, stringData: Record<string, string>) => core.createNamespacedSecret({ namespace, body: { metadata: { name }, stringData } });

  beforeAll(async () => {
    chartServer = await startTestChartServer(await chartFolder(env, ['1.0.0']), { basicAuth: repoLogin });
    const login = await registryLogin(env);
    registrySecret = login.password;
    ociRepository = registryPath(env.ociRegistry.authUrl, uniqueName('deps'));
    await pushUnicorn(env, `${ociRepository}`, '2.0.0', login);
    await secret('repo-login', repoLogin);
    await secret('registry-login', login);

    // One repository, three umbrella charts: each renders unicorn as its subchart (named after the release).
    const root = await mkdtemp(join(tmpdir(), 'helmcrew-gitdeps-'));
    const work = join(root, 'umbrella.work');
    const gitAs = ['-c', 'user.name=helmcrew-test', '-c', 'user.email=test@helmcrew.invalid', '-c', 'init.defaultBranch=main'];
    const run = (...args: string[]) => execa('git', [...gitAs, ...args], { cwd: work });
    await execa('git', [...gitAs, 'init', '-q', '--bare', join(root, 'umbrella.git')]);
    await mkdir(work, { recursive: true });
    await run('init', '-q');
    const umbrella = async (folder: string, dependency: { version: string; repository: string }) => {
      await mkdir(join(work, 'charts', folder), { recursive: true });
      const chartYaml = [
        'apiVersion: v2',
        `name: ${folder}`,
        'version: 0.1.0',
        'dependencies:',
        '  - name: unicorn',
        `    version: ${dependency.version}`,
        `    repository: ${dependency.repository}`,
        '',
      ].join('\n');
      await writeFile(join(work, 'charts', folder, 'Chart.yaml'), chartYaml);
    };
    await umbrella('web', { version: '1.0.0', repository: chartServer.url });
    await umbrella('web-oci', { version: '2.0.0', repository: ociRepository });
    await umbrella('web-missing', { version: '9.9.9', repository: chartServer.url });
    await run('add', '-A');
    await run('commit', '-q', '-m', 'umbrella charts');
    await run('push', '-q', join(root, 'umbrella.git'), 'HEAD:refs/heads/main');
    git = await startGitHttpServer(root);
  });
  afterAll(async () => {
    await chartServer?.stop();
    await git?.stop();
  });

  it('a dependency from an http(s) repository behind basic auth is built and installed with the chart', async () => {
    const generation = await declare('web', 'web', source('charts/web', [{ repository: chartServer.url, secretRef: { name: 'repo-login' } }]));
    const done = await waitForReconciled(kubeConfig, namespace, 'web', generation);
    expect(done.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True' });
    expect((await storage.history(namespace, 'web')).deployed).toMatchObject({ chartVersion: '0.1.0', status: 'deployed' });
    // The subchart's objects are the release's: unicorn 1.0.0 is pink.
    expect(await servedColor(kubeConfig, namespace, 'web')).toBe('pink');
    expect(await ctl.helm.count('dependency')).toBe(1);

    // Another release of the same commit and folder: the built dependencies are reused, not built again.
    const again = await declare('web-again', 'web', source('charts/web', [{ repository: chartServer.url, secretRef: { name: 'repo-login' } }]));
    await waitForReconciled(kubeConfig, namespace, 'web-again', again);
    expect(await servedColor(kubeConfig, namespace, 'web-again')).toBe('pink');
    expect(await ctl.helm.count('dependency')).toBe(1);
  });

  it('a dependency from an oci:// registry behind a login', async () => {
    const repository = ociRepository;
    const generation = await declare('web-oci', 'web-oci', source('charts/web-oci', [{ repository, secretRef: { name: 'registry-login' }, insecure: true }]));
    await waitForReconciled(kubeConfig, namespace, 'web-oci', generation);
    // unicorn 2.0.0 is blue.
    expect(await servedColor(kubeConfig, namespace, 'web-oci')).toBe('blue');
  });

  it('a missing dependency version, and a repository without its credentials: Ready=False naming the dependency', async () => {
    await declare('missing', 'web-missing', source('charts/web-missing', [{ repository: chartServer.url, secretRef: { name: 'repo-login' } }]));
    const missing = await waitForReadyCondition(kubeConfig, namespace, 'missing', 'ChartPullFailed');
    expect(missing.message).toContain('dependency unicorn 9.9.9');
    expect(missing.message).toContain(chartServer.url);

    await declare('no-login', 'web', source('charts/web', undefined));
    const refused = await waitForReadyCondition(kubeConfig, namespace, 'no-login', 'ChartPullFailed');
    expect(refused.message).toContain(`dependency unicorn 1.0.0 from ${chartServer.url}`);
    expect(refused.message).toContain('spec.chart.git.dependencies');
  });

  it('the credentials are in no helm argument, status, Event or log line', async () => {
    const args = JSON.stringify(await ctl.helm.invocations());
    const statuses = await Promise.all(['web', 'web-oci', 'missing', 'no-login'].map((n) => new HelmReleaseApi(makeKubeClients(kubeConfig)).get(namespace, n)));
    const events = (await core.listNamespacedEvent({ namespace })).items;
    const everything = [args, JSON.stringify(statuses.map((r) => r?.status)), JSON.stringify(events), await readFile(logFile, 'utf8')].join('\n');
    for (const leak of [repoLogin.password, registrySecret, Buffer.from(`${repoLogin.username}:${repoLogin.password}`).toString('base64')])
      expect(everything).not.toContain(leak);
  });
});
