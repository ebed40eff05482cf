import { realpath } from 'node:fs/promises';
import { join } from 'node:path';
import type { GitChartSource } from '../../../api/helmrelease.js';
import type { Logger } from '../../../core/log.js';
import { FreshCache } from '../fresh-cache.js';
import { checkRepositoryHost, urlHost } from '../guarded-get.js';
import { DEFAULT_ALLOWED_REPOSITORY_HOSTS, parseHostPolicy, type HostPolicy } from '../host-policy.js';
import { RepositoryNotAllowedError } from '../repository-errors.js';
import type { DependencyBuilds } from '../../helm/dependency-build.js';
import type { DependencyRepositoryAccess } from './chart-dependencies.js';
import { readChartFolder } from './chart-folder.js';
import { displayUrl, type GitAccess } from './git-access.js';
import { GitCheckouts } from './git-checkouts.js';
import { GitSourceError } from './git-errors.js';
import { parseLsRemote, pickCommit, type RemoteRefs } from './git-refs.js';
import { GitRunner } from './git-runner.js';
import { GitSignatures, type GitSignatureRequest } from './git-signatures.js';
import type { VerificationCheck } from '../verification/verification-outcome.js';

const LS_REMOTE_TIMEOUT_MS = 30_000;

/** What a git chart resolves to: the commit, the chart folder in its shared checkout, Chart.yaml's version. */
export interface ResolvedGitChart {
  commit: string;
  /** How the commit was picked, for messages: "branch main", "tag v1.2.0". */
  ref: string;
  chartDir: string;
  version: string;
  /** git.verify: who signed the commit (or tag). */
  signedBy?: string;
}

/** spec.chart.git.verify: the mode and the key Secret as read. */
export type GitVerifyRequest = Pick<GitSignatureRequest, 'mode' | 'keySecret'>;

/** The commit (or its tag) failed git.verify: nothing of it is checked out. */
export class GitVerificationError extends Error {
  override name = 'GitVerificationError';
  constructor(
    readonly artifact: string,
    readonly failure: { check: VerificationCheck; detail?: string },
  ) {
    super(`${artifact}: ${failure.check}`);
  }
}

/** spec.chart.git.dependencies, their Secrets read, and the release asking (for logs). */
export interface GitDependencyAccess {
  key: string;
  entries: DependencyRepositoryAccess[];
}

export interface GitChartSourcesOptions {
  gitBin: string;
  workDir: string;
  policy: HostPolicy;
  log: Logger;
  now?: () => number;
  /** Builds the dependencies Chart.yaml declares (helm dependency build); none: the chart folder is used as it is. */
  dependencies?: Pick<DependencyBuilds, 'prepare'>;
  gpgBin?: string;
}

/**
 * Charts from Git repositories. A periodic check costs one `git ls-remote` per repository and
 * set of credentials per interval, shared by every release on it (an answer younger than the
 * asking release's interval is reused); a commit not seen before costs one shallow fetch into a
 * checkout shared by every release on that commit; a settled release costs no git at all between.
 */
export class GitChartSources {
  readonly runner: GitRunner;
  private readonly refs: FreshCache<RemoteRefs>;
  private readonly checkouts: GitCheckouts;
  private readonly signatures: GitSignatures;
  private readonly policy: HostPolicy;
  private readonly dependencies: Pick<DependencyBuilds, 'prepare'> | undefined;

  constructor(options: Partial<GitChartSourcesOptions> & Pick<GitChartSourcesOptions, 'workDir' | 'log'>) {
    const now = options.now ?? Date.now;
    this.policy = options.policy ?? parseHostPolicy(DEFAULT_ALLOWED_REPOSITORY_HOSTS);
    this.runner = new GitRunner(options.gitBin ?? 'git', options.workDir, options.log);
    this.refs = new FreshCache({ maxBytes: 8 * 1024 * 1024, retainMs: 60 * 60_000, failureTtlMs: 10_000, now });
    this.checkouts = new GitCheckouts(this.runner, join(options.workDir, 'git'), now, (repository) => this.checkHost(repository));
    this.signatures = new GitSignatures(this.runner, join(options.workDir, 'git-verify'), options.gpgBin ?? 'gpg', now);
    this.dependencies = options.dependencies;
  }

  async resolve(
    git: GitChartSource,
    chartName: string,
    access: GitAccess,
    maxAgeMs: number,
    deps?: GitDependencyAccess,
    verify?: GitVerifyRequest,
  ): Promise<ResolvedGitChart> {
    const url = git.url;
    const shown = displayUrl(git.url);
    const refs = await this.refs.get(`${url}|${access.cacheKey}`, maxAgeMs, () => this.lsRemote(url, access), weigh);
    const picked = pickCommit(refs, git.ref);
    if (!picked.ok) throw new GitSourceError(`Git repository ${shown} ${picked.problem}`.replace(' :', ':'));
    const refName = [...refs.entries()].find(([name, sha]) => sha === picked.commit && name !== 'HEAD')?.[0];
    // Verified before anything of the commit is checked out, rendered or installed.
    let signedBy: string | undefined;
    if (verify) {
      const outcome = await this.signatures.verify({ url, access, commit: picked.commit, ...(picked.tag ? { tag: picked.tag } : {}), ...(refName ? { refName } : {}), ...verify });
      if (!outcome.ok) throw new GitVerificationError(`commit ${shown}@${picked.commit.slice(0, 12)} (${picked.ref})`, outcome);
      signedBy = outcome.signedBy;
    }
    const checkout = await this.checkouts.checkout(url, access, picked.commit, refName, {
      ...(git.sparseCheckout?.length ? { sparse: git.sparseCheckout } : {}),
      ...(git.recurseSubmodules ? { submodules: true } : {}),
    });
    const where = `Git repository ${shown} at ${picked.ref} (commit ${picked.commit.slice(0, 7)})`;
    const folder = await readChartFolder({ checkout, path: git.path ?? '.', expectedName: chartName, where });
    // Chart.yaml's dependencies, built once per commit into a copy (the checkout stays as fetched).
    const chartDir = this.dependencies
      ? await this.dependencies.prepare({
          key: deps?.key ?? '',
          checkoutDir: await realpath(checkout),
          chartDir: folder.dir,
          entries: deps?.entries ?? [],
          where,
          checkHost: (repository) => this.checkHost(repository),
        })
      : folder.dir;
    return { commit: picked.commit, ref: picked.ref, chartDir, version: folder.version, ...(signedBy ? { signedBy } : {}) };
  }

  private async checkHost(repository: string): Promise<void> {
    let url: URL;
    try {
      url = new URL(repository.replace(/^oci:/, 'http:'));
    } catch {
      throw new RepositoryNotAllowedError(repository, 'it is not a URL');
    }
    await checkRepositoryHost(this.policy, repository, urlHost(url));
  }

  private async lsRemote(url: string, access: GitAccess): Promise<RemoteRefs> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new RepositoryNotAllowedError(displayUrl(url), 'it is not a URL');
    }
    // git resolves the name again itself; this refuses hosts the operator's policy does not allow.
    await checkRepositoryHost(this.policy, displayUrl(url), urlHost(parsed));
    // A proxy is a connection of ours too: its address passes the same policy.
    if (access.proxy) await checkRepositoryHost(this.policy, `${displayUrl(url)} (its proxy ${access.proxy.url.host})`, urlHost(access.proxy.url));
    const out = await this.runner.remote('ls-remote', ['ls-remote', '--', url], { url, access, timeoutMs: LS_REMOTE_TIMEOUT_MS });
    return parseLsRemote(out);
  }
}

function weigh(refs: RemoteRefs): number {
  let bytes = 64;
  for (const [name] of refs) bytes += 140 + name.length * 2;
  return bytes;
}
