import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import {
  allVendored,
  buildKey,
  checkDependencySources,
  declaredDependencies,
  dependencyBuildFailure,
  dependencyFiles,
  remoteRepositories,
  unsupportedEntry,
  type DependencyRepositoryAccess,
} from '../charts/git/chart-dependencies.js';
import { GitSourceError } from '../charts/git/git-errors.js';
import { accessSecrets } from '../charts/chart-access.js';
import { HelmError } from './helm-error.js';
import type { HelmRunner } from './helm-runner.js';
import { withPrivateFiles } from './private-files.js';

/** A build unused this long is removed when another is made. */
const UNUSED_MS = 60 * 60_000;
const BUILD_TIMEOUT_MS = 180_000;

export interface DependencyBuildRequest {
  /** "namespace/name" of the HelmRelease, for logs. */
  key: string;
  /** The shared, read-only checkout of the commit, and the chart folder in it. */
  checkoutDir: string;
  chartDir: string;
  /** spec.chart.git.dependencies, their Secrets read. */
  entries: DependencyRepositoryAccess[];
  /** For messages: "Git repository … at branch main (commit abc1234)". */
  where: string;
  /** Checks a repository's host against the operator's policy before helm is let at it. */
  checkHost: (repository: string) => Promise<void>;
}

/**
 * `helm dependency build` for a Git chart whose Chart.yaml declares dependencies not in charts/:
 * on a copy of the checkout (the checkout is shared and read-only), once per commit, chart folder
 * and set of credentials — an in-sync check finds the build and runs nothing. Credentials reach
 * helm only as files of a private folder (repositories.yaml, registry.json), removed after;
 * helm's repository cache is private to the run too, so no index answered to one set of
 * credentials serves another.
 */
export class DependencyBuilds {
  private readonly making = new Map<string, Promise<string>>();
  private readonly used = new Map<string, number>();

  constructor(
    private readonly runner: Pick<HelmRunner, 'run'>,
    private readonly workDir: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** The chart folder helm installs from: `chartDir` itself when there is nothing to build. */
  async prepare(req: DependencyBuildRequest): Promise<string> {
    const chartYaml = await readFile(join(req.chartDir, 'Chart.yaml'), 'utf8');
    const dependencies = declaredDependencies(chartYaml, req.where);
    if (dependencies.length === 0) return req.chartDir;
    const vendored = await readdir(join(req.chartDir, 'charts')).catch(() => [] as string[]);
    if (allVendored(dependencies, vendored)) return req.chartDir;
    checkDependencySources(dependencies, req.chartDir, req.checkoutDir, req.where);
    const unsupported = unsupportedEntry(req.entries);
    if (unsupported) throw new GitSourceError(`${req.where}: ${unsupported}`);

    const chartPath = relative(req.checkoutDir, req.chartDir) || '.';
    const root = join(this.workDir, 'git-deps');
    const dir = join(root, buildKey(req.checkoutDir, chartPath, req.entries));
    this.used.set(dir, this.now());
    const built = join(dir, chartPath);
    if (existsSync(dir)) return built;
    let running = this.making.get(dir);
    if (!running) {
      running = this.build(req, root, dir, chartPath, dependencies).finally(() => this.making.delete(dir));
      this.making.set(dir, running);
    }
    await running;
    return built;
  }

  private async build(req: DependencyBuildRequest, root: string, dir: string, chartPath: string, dependencies: ReturnType<typeof declaredDependencies>): Promise<string> {
    for (const repository of remoteRepositories(dependencies)) await req.checkHost(repository);
    await mkdir(root, { recursive: true, mode: 0o700 });
    const staging = await mkdtemp(join(root, '.build-'));
    try {
      await cp(req.checkoutDir, staging, { recursive: true, verbatimSymlinks: true });
      const secrets = req.entries.flatMap((e) => accessSecrets(e.access));
      const redact = (text: string) => secrets.filter((s) => s.length >= 4).reduce((out, s) => out.split(s).join('[redacted]'), text);
      const plainHttp = req.entries.some((e) => e.repository.startsWith('oci://') && e.access.insecure);
      await withPrivateFiles(this.workDir, {}, async (_none, privateDir) => {
        // The files name each other (repositories.yaml names its CA files), so they are written here, in the private folder.
        const files = dependencyFiles(req.entries, (name) => join(privateDir, name));
        for (const [name, content] of Object.entries(files)) await writeFile(join(privateDir, name), content, { mode: 0o600, flag: 'wx' });
        const args = ['dependency', 'build', join(staging, chartPath)];
        args.push('--repository-config', join(privateDir, 'repositories.yaml'), '--registry-config', join(privateDir, 'registry.json'));
        args.push('--repository-cache', join(privateDir, 'cache'), '--content-cache', join(privateDir, 'content'));
        if (plainHttp) args.push('--plain-http');
        try {
          await this.runner.run(args, { step: 'pull', release: req.key, timeoutMs: BUILD_TIMEOUT_MS, redact });
        } catch (error) {
          if (!(error instanceof HelmError)) throw error;
          throw new GitSourceError(dependencyBuildFailure(error.stderrTail, dependencies, req.entries, req.where));
        }
      });
      await rename(staging, dir);
      await this.prune(root, dir);
      return dir;
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  }

  /** Removes builds no release asked for within the hour. */
  private async prune(root: string, keep: string): Promise<void> {
    const cutoff = this.now() - UNUSED_MS;
    for (const name of await readdir(root)) {
      const dir = join(root, name);
      if (dir === keep || this.making.has(dir)) continue;
      const lastUsed = this.used.get(dir) ?? (await stat(dir).catch(() => undefined))?.mtimeMs ?? 0;
      if (lastUsed < cutoff) {
        this.used.delete(dir);
        await rm(dir, { recursive: true, force: true });
      }
    }
  }
}
