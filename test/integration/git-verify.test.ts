import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GitChartSource } from '../../src/api/helmrelease.js';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { startGitHttpServer, type GitHttpServer } from '../../src/dev/git-server.js';
import { createChartGitRepo } from '../../src/dev/git-repos.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { waitForReadyCondition } from '../support/eventually.js';
import { namespaceWithController, testEnv } from '../support/fixtures.js';
import { makePgpKey, makeSshKey, stopPgpAgent, type TestPgpKey } from '../support/signing-keys.js';

/** spec.chart.git.verify (signed commits and tags, PGP and SSH keys) and the Flux GitRepository fields ref.name, sparseCheckout, recurseSubmodules. */
describe('Git charts: signed commits and tags; ref.name, sparseCheckout, recurseSubmodules', () => {
  const { kubeConfig } = testEnv();
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const storage = new ReleaseStorage(makeKubeClients(kubeConfig));
  const api = new HelmReleaseApi(makeKubeClients(kubeConfig));
  const { namespace } = namespaceWithController('gitverify');
  let root = '';
  let http: GitHttpServer;
  let signer: TestPgpKey;
  let other: TestPgpKey;
  const commits: Record<string, string> = {};

  const url = (name = 'charts') => `${http.url}/${name}.git`;
  const declare = (name: string, git: Partial<GitChartSource>) =>
    applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, name, { chart: { name: 'unicorn', git: { url: url(), path: 'charts/unicorn', ...git } }, interval: '10m', timeout: '60s' }),
    );
  const secret = (name: string, stringData: Record<string, string>) => core.createNamespacedSecret({ namespace, body: { metadata: { name }, stringData } });
  const revisions = async (name: string) => (await storage.history(namespace, name)).releases.length;
  const failed = async (name: string) => (await waitForReadyCondition(kubeConfig, namespace, name, 'VerificationFailed')).message;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'hc-gitverify-'));
    [signer, other] = await Promise.all([makePgpKey('Chart Signer <signer@helmcrew.invalid>'), makePgpKey('Someone Else <else@helmcrew.invalid>')]);
    const bot = await makeSshKey('ci-bot@helmcrew');
    const repo = await createChartGitRepo(root, 'charts', '1.0.0', 'pink');
    commits.unsigned = (await execa('git', ['--git-dir', repo.bare, 'rev-parse', 'main'])).stdout.trim();
    const work = join(root, 'charts.work');
    const as = ['-c', 'user.name=helmcrew-test', '-c', 'user.email=test@helmcrew.invalid'];
    const git = (args: string[], env: Record<string, string> = {}) => execa('git', [...as, ...args], { cwd: work, env: { ...process.env, ...env } });
    const pgp = { GNUPGHOME: signer.home };
    await git(['-c', `user.signingkey=${signer.uid}`, 'commit', '-q', '-S', '--allow-empty', '-m', 'signed with PGP'], pgp);
    await git(['push', '-q', 'origin', 'HEAD:refs/heads/pgp']);
    await git(['-c', `user.signingkey=${signer.uid}`, 'tag', '-s', '-m', 'v2.0.0', 'v2.0.0'], pgp);
    await git(['tag', '-a', '-m', 'v3.0.0', 'v3.0.0']);
    await git(['push', '-q', 'origin', 'refs/tags/v2.0.0', 'refs/tags/v3.0.0']);
    await git(['-c', 'gpg.format=ssh', '-c', `user.signingkey=${bot.privateKeyFile}.pub`, 'commit', '-q', '-S', '--allow-empty', '-m', 'signed with SSH']);
    await git(['push', '-q', 'origin', 'HEAD:refs/heads/ssh']);
    // A folder beside the chart, for sparseCheckout.
    await mkdir(join(work, 'docs'), { recursive: true });
    await writeFile(join(work, 'docs', 'README.md'), 'docs\n');
    await git(['add', '-A']);
    await git(['commit', '-q', '-m', 'docs']);
    await git(['push', '-q', 'origin', 'HEAD:refs/heads/docs']);
    // A parent repository whose chart is a submodule (relative URL, resolved against the parent's).
    await createChartGitRepo(root, 'vendored', '1.5.0', 'blue');
    await execa('git', [...as, 'init', '-q', '--bare', join(root, 'parent.git')]);
    const parentWork = join(root, 'parent.work');
    await mkdir(parentWork);
    const pg = (args: string[]) => execa('git', [...as, '-c', 'protocol.file.allow=always', ...args], { cwd: parentWork });
    await pg(['init', '-q', '-b', 'main']);
    await pg(['submodule', 'add', '-q', join(root, 'vendored.git'), 'vendor']);
    await pg(['config', '-f', '.gitmodules', 'submodule.vendor.url', '../vendored.git']);
    await pg(['add', '-A']);
    await pg(['commit', '-q', '-m', 'vendor the chart']);
    await pg(['push', '-q', join(root, 'parent.git'), 'HEAD:refs/heads/main']);
    http = await startGitHttpServer(root);
    await secret('git-keys', { 'signer.asc': signer.armored, 'bot.pub': `${bot.publicKey}\n` });
    await secret('git-other-keys', { 'else.asc': other.armored });
  });
  afterAll(async () => {
    await http?.stop();
    await Promise.all([signer, other].filter(Boolean).map(stopPgpAgent));
  });

  it('a commit signed with a PGP key of the Secret installs; status says who signed it', async () => {
    await waitForReconciled(
      kubeConfig,
      namespace,
      'pgp',
      await declare('pgp', { ref: { branch: 'pgp' }, verify: { mode: 'HEAD', secretRef: { name: 'git-keys' } } }),
    );
    expect(await revisions('pgp')).toBe(1);
    const verification = (await api.get(namespace, 'pgp'))?.status?.verification;
    expect(verification).toMatchObject({ provider: 'git' });
    expect(verification?.verifiedBy).toMatch(/^Chart Signer <signer@helmcrew\.invalid> \(key [0-9A-F]{16}\)$/);
  });

  it('a commit signed with an SSH key of the Secret installs (ref.name, a full reference); signed by the key comment', async () => {
    await waitForReconciled(
      kubeConfig,
      namespace,
      'ssh',
      await declare('ssh', { ref: { name: 'refs/heads/ssh' }, verify: { secretRef: { name: 'git-keys' } } }),
    );
    expect((await api.get(namespace, 'ssh'))?.status?.verification?.verifiedBy).toMatch(/^ci-bot@helmcrew \(ED25519 SHA256:\S+\)$/);
  });

  it('an unsigned commit: VerificationFailed naming the release, the commit and the check; nothing installed', async () => {
    await declare('unsigned', { ref: { branch: 'main' }, verify: { secretRef: { name: 'git-keys' } } });
    expect(await failed('unsigned')).toBe(
      `HelmRelease ${namespace}/unsigned: commit ${url()}@${commits.unsigned!.slice(0, 12)} (branch main) failed verification: the commit is not signed; nothing of it is rendered or installed`,
    );
    expect(await revisions('unsigned')).toBe(0);
  });

  it('a commit signed by a key not in the Secret: VerificationFailed (unknown key)', async () => {
    await declare('unknown', { ref: { branch: 'pgp' }, verify: { secretRef: { name: 'git-other-keys' } } });
    expect(await failed('unknown')).toContain(`it is signed by a key that is not among the keys of Secret ${namespace}/git-other-keys`);
    expect(await revisions('unknown')).toBe(0);
  });

  it('without verify the unsigned commit installs: the check is what refuses it', async () => {
    await waitForReconciled(kubeConfig, namespace, 'unchecked', await declare('unchecked', { ref: { branch: 'main' } }));
    expect(await revisions('unchecked')).toBe(1);
  });

  it('mode Tag: a signed annotated tag installs, an unsigned one is refused', async () => {
    await waitForReconciled(
      kubeConfig,
      namespace,
      'tag-signed',
      await declare('tag-signed', { ref: { tag: 'v2.0.0' }, verify: { mode: 'Tag', secretRef: { name: 'git-keys' } } }),
    );
    expect((await api.get(namespace, 'tag-signed'))?.status?.verification?.verifiedBy).toContain('Chart Signer');
    await declare('tag-unsigned', { ref: { tag: 'v3.0.0' }, verify: { mode: 'TagAndHEAD', secretRef: { name: 'git-keys' } } });
    expect(await failed('tag-unsigned')).toContain('the tag is not signed');
    expect(await revisions('tag-unsigned')).toBe(0);
  });

  it('sparseCheckout: the chart folder alone installs; a sparse set without it has no chart', async () => {
    await waitForReconciled(kubeConfig, namespace, 'sparse', await declare('sparse', { ref: { branch: 'docs' }, sparseCheckout: ['charts'] }));
    expect(await revisions('sparse')).toBe(1);
    await declare('sparse-wrong', { ref: { branch: 'docs' }, sparseCheckout: ['docs'] });
    expect((await waitForReadyCondition(kubeConfig, namespace, 'sparse-wrong', 'ChartPullFailed')).message).toContain('has no folder charts/unicorn');
  });

  it('recurseSubmodules: a chart in a submodule installs; without it the folder is empty', async () => {
    const parent = { url: url('parent'), ref: { branch: 'main' }, path: 'vendor/charts/unicorn' };
    await waitForReconciled(kubeConfig, namespace, 'submodules', await declare('submodules', { ...parent, recurseSubmodules: true }));
    expect((await storage.history(namespace, 'submodules')).deployed).toMatchObject({ chartVersion: '1.5.0' });
    await declare('no-submodules', parent);
    expect((await waitForReadyCondition(kubeConfig, namespace, 'no-submodules', 'ChartPullFailed')).message).toContain('vendor/charts/unicorn');
  });
});
