import { execa, type ResultPromise } from 'execa';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finalStageEnv } from '../../bench/lib/image-env.js';
import { freePorts } from '../../src/dev/free-port.js';
import { REPO_ROOT } from '../../src/dev/paths.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { deleteNamespace, freshNamespace, testEnv, uniqueName } from '../support/fixtures.js';
import { CONTROLLER_RIGHTS_SETTINGS } from '../../src/dev/dev-settings.js';

/**
 * The image's build steps (scripts/build-image-root.sh, which the Dockerfile RUNs) run here
 * outside a container into a temporary root, and what they built runs: the CLI, the pinned helm,
 * and a controller from that root reconciling a release on the real environment.
 */
describe('the image root built by scripts/build-image-root.sh', () => {
  const { env, kubeConfig } = testEnv();
  const dockerfile = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');
  let root: string;
  let home: string;
  const app = () => join(root, 'app');
  const helm = () => join(root, 'usr/local/bin/helm');
  /** The image's environment (the Dockerfile's final ENV), HOME somewhere empty, run from outside the checkout. */
  const run = (args: string[], extra: Record<string, string> = {}) =>
    execa('node', [join(app(), 'bin/helmcrew.js'), ...args], {
      cwd: home,
      env: { ...finalStageEnv(dockerfile), HELM_BIN: helm(), HOME: home, ...extra },
      extendEnv: false,
      reject: false,
    });

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'helmcrew-image-'));
    home = await mkdtemp(join(tmpdir(), 'helmcrew-image-home-'));
    // npm may use its cache; Go its module and build caches (make setup filled both). The two
    // parts are independent (the Dockerfile builds them in separate stages): built side by side,
    // Go's links overlap tsc and npm install.
    const parts = await Promise.all(
      ['--helm', '--app'].map((part) =>
        execa('bash', [join(REPO_ROOT, 'scripts/build-image-root.sh'), part, root], {
          reject: false,
          all: true,
          env: { npm_config_prefer_offline: 'true' },
        }),
      ),
    );
    for (const built of parts) expect(built.exitCode, built.all).toBe(0);
  }, 900_000);
  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('holds helm at the version the Dockerfile pins', async () => {
    const pinned = /^ARG HELM_VERSION=(\S+)$/m.exec(dockerfile)?.[1];
    expect(pinned).toMatch(/^v4\.\d+\.\d+$/);
    const version = await execa(helm(), ['version', '--template', '{{.Version}}'], { env: { HOME: home } });
    expect(version.stdout).toBe(pinned);
  });

  it('holds kustomize (the post-renderer) at the version the Dockerfile pins', async () => {
    const pinned = /^ARG KUSTOMIZE_VERSION=(\S+)$/m.exec(dockerfile)?.[1];
    expect(pinned).toMatch(/^v5\.\d+\.\d+$/);
    const version = await execa(join(root, 'usr/local/bin/kustomize'), ['version'], { env: { HOME: home } });
    expect(version.stdout).toContain(pinned);
  });

  it('holds sops (SOPS-encrypted values) at the version the Dockerfile pins, where SOPS_BIN points', async () => {
    const pinned = /^ARG SOPS_VERSION=(\S+)$/m.exec(dockerfile)?.[1];
    expect(pinned).toMatch(/^v3\.\d+\.\d+$/);
    expect(finalStageEnv(dockerfile).SOPS_BIN).toBe('/usr/local/bin/sops');
    const version = await execa(join(root, 'usr/local/bin/sops'), ['--version', '--disable-version-check'], { env: { HOME: home } });
    expect(version.stdout).toContain(`sops ${pinned!.slice(1)}`);
  });

  it('holds cosign (signed charts and images) at the version the Dockerfile pins, where COSIGN_BIN points', async () => {
    const pinned = /^ARG COSIGN_VERSION=(\S+)$/m.exec(dockerfile)?.[1];
    expect(pinned).toMatch(/^v3\.\d+\.\d+$/);
    expect(finalStageEnv(dockerfile).COSIGN_BIN).toBe('/usr/local/bin/cosign');
    const version = await execa(join(root, 'usr/local/bin/cosign'), ['version'], { env: { HOME: home } });
    expect(version.stdout).toMatch(new RegExp(`GitVersion:\\s+${pinned!.replace(/\./g, '\\.')}`));
  });

  it('holds the compiled CLI and production dependencies only: no sources, no dev tools', () => {
    expect(existsSync(join(app(), 'dist/cli/main.js'))).toBe(true);
    expect(existsSync(join(app(), 'src'))).toBe(false);
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    for (const dep of Object.keys(pkg.dependencies)) expect(existsSync(join(app(), 'node_modules', dep)), dep).toBe(true);
    // What the lock file marks dev-only (typescript, vitest, eslint, tsx…) is absent; a devDependency that a production package also needs (@types/node) may stay.
    const lock = JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
    const devOnly = Object.entries(lock.packages).filter(([path, entry]) => entry.dev && /^node_modules\/(@[^/]+\/)?[^/]+$/.test(path));
    expect(devOnly.length).toBeGreaterThan(50);
    expect(devOnly.map(([path]) => path).filter((path) => existsSync(join(app(), path)))).toEqual([]);
    for (const tool of ['typescript', 'vitest', 'tsx', 'eslint']) expect(existsSync(join(app(), 'node_modules', tool)), tool).toBe(false);
  });

  it('runs the CLI (helmcrew --help) from outside the checkout', async () => {
    const help = await run(['--help']);
    expect(help.exitCode, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/helmcrew controller\s+run the reconcile loop/);
  });

  it('a controller started from it installs a release with its helm, serves /readyz and /metrics, and exits 0 on SIGTERM', async () => {
    const namespace = await freshNamespace(kubeConfig, 'image');
    const [healthPort] = await freePorts(1);
    const work = await mkdtemp(join(tmpdir(), 'helmcrew-image-work-'));
    let controller: ResultPromise | undefined;
    try {
      controller = execa('node', [join(app(), 'bin/helmcrew.js'), 'controller'], {
        cwd: home,
        env: {
          ...finalStageEnv(dockerfile),
          HELM_BIN: helm(),
          HOME: home,
          PATH: '/usr/bin:/bin',
          KUBECONFIG: env.kubeconfig,
          REDIS_URL: env.redisUrl,
          WATCH_NAMESPACES: namespace,
          HELMCREW_NAMESPACE: namespace,
          ...CONTROLLER_RIGHTS_SETTINGS,
          HELMCREW_QUEUE_PREFIX: uniqueName('hc-image'),
          HELMCREW_WORK_DIR: work,
          HEALTH_PORT: String(healthPort),
          LOG_LEVEL: 'warn',
        },
        extendEnv: false,
        reject: false,
        all: true,
      });
      const chart = { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' };
      const generation = await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'from-image', { chart }));
      const release = await waitForReconciled(kubeConfig, namespace, 'from-image', generation);
      expect(release.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True', reason: 'InstallSucceeded' });
      const ready = await fetch(`http://127.0.0.1:${healthPort}/readyz`);
      expect(ready.status).toBe(200);
      const metrics = await (await fetch(`http://127.0.0.1:${healthPort}/metrics`)).text();
      expect(metrics).toMatch(/^helmcrew_helm_processes_total\{verb="install",result="success"\} [1-9]/m);
      controller.kill('SIGTERM');
      const exited = await controller;
      expect(exited.exitCode, String(exited.all)).toBe(0);
    } finally {
      controller?.kill('SIGKILL');
      await rm(work, { recursive: true, force: true });
      await deleteNamespace(kubeConfig, namespace);
    }
  });
});
