import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { GitAccess } from './git-access.js';
import type { GitRunner } from './git-runner.js';
import { submoduleUrls } from './submodules.js';

/** spec.chart.git.sparseCheckout and recurseSubmodules: a checkout made with them is kept apart from a whole one. */
export interface CheckoutShape {
  sparse?: readonly string[];
  submodules?: boolean;
}

/** A checkout unused this long is removed when another is made for the same repository. */
const UNUSED_MS = 60 * 60_000;
const FETCH_TIMEOUT_MS = 120_000;

/**
 * One working copy per repository and commit (`<workDir>/git/<url hash>/<commit>`), shared by
 * every release that uses them; made by a shallow fetch of that one commit, only when it is not
 * there yet. Read-only once made (renamed into place whole, its .git removed): helm reads the chart
 * folder straight from it.
 */
export class GitCheckouts {
  private readonly making = new Map<string, Promise<string>>();
  private readonly used = new Map<string, number>();

  constructor(
    private readonly runner: GitRunner,
    private readonly root: string,
    private readonly now: () => number = Date.now,
    /** The operator's host policy, for the submodules' URLs (git resolves them itself). */
    private readonly checkHost: (repository: string) => Promise<void> = async () => undefined,
  ) {}

  async checkout(url: string, access: GitAccess, commit: string, refName?: string, shape: CheckoutShape = {}): Promise<string> {
    const repoDir = join(this.root, createHash('sha256').update(url).digest('hex').slice(0, 16));
    const dir = join(repoDir, commit + shapeSuffix(shape));
    this.used.set(dir, this.now());
    if (existsSync(dir)) return dir;
    let running = this.making.get(dir);
    if (!running) {
      running = this.make(repoDir, dir, url, access, commit, refName, shape).finally(() => this.making.delete(dir));
      this.making.set(dir, running);
    }
    return running;
  }

  private async make(repoDir: string, dir: string, url: string, access: GitAccess, commit: string, refName: string | undefined, shape: CheckoutShape): Promise<string> {
    await mkdir(repoDir, { recursive: true, mode: 0o700 });
    const staging = await mkdtemp(join(repoDir, '.fetch-'));
    try {
      await this.runner.local(['init', '-q'], staging);
      // Cone mode: these folders (and the files at the top) only; set before the checkout writes anything.
      if (shape.sparse?.length) await this.runner.local(['sparse-checkout', 'set', '--cone', '--', ...shape.sparse], staging);
      const fetch = (what: string) =>
        this.runner.remote('fetch', ['fetch', '-q', '--depth', '1', '--no-tags', '--', url, what], { url, access, cwd: staging, timeoutMs: FETCH_TIMEOUT_MS });
      // Protocol v2 servers hand out a commit by its id; older ones only by a ref's name.
      await fetch(commit).catch(async (error: unknown) => {
        if (!refName) throw error;
        await fetch(refName);
      });
      await this.runner.local(['checkout', '-q', '--detach', commit], staging);
      if (shape.submodules) {
        // Relative submodule URLs are resolved against origin's (no credentials in it: those are files).
        await this.runner.local(['remote', 'add', 'origin', url], staging);
        await this.submodules(staging, url, access);
      }
      await rm(join(staging, '.git'), { recursive: true, force: true });
      await rename(staging, dir);
      await this.prune(repoDir, dir);
      return dir;
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  }

  /**
   * The submodules at the commits the parent records, recursively: every URL .gitmodules names
   * passes the host policy first (git allows only http(s) and ssh); the same credentials are offered.
   */
  private async submodules(staging: string, url: string, access: GitAccess): Promise<void> {
    const listed = await this.runner.local(['config', '-f', '.gitmodules', '--get-regexp', '^submodule\\..*\\.url$'], staging).catch(() => '');
    for (const repository of submoduleUrls(listed, url)) await this.checkHost(repository);
    await this.runner.remote('fetch', ['submodule', 'update', '--init', '--recursive', '--depth', '1'], { url, access, cwd: staging, timeoutMs: FETCH_TIMEOUT_MS });
  }

  /** Removes this repository's other checkouts no release asked for within the hour. */
  private async prune(repoDir: string, keep: string): Promise<void> {
    const cutoff = this.now() - UNUSED_MS;
    for (const name of await readdir(repoDir)) {
      const dir = join(repoDir, name);
      if (dir === keep || this.making.has(dir)) continue;
      // A staging folder may be another fetch's, running now: only an old one is a leftover.
      const lastUsed = this.used.get(dir) ?? (await stat(dir).catch(() => undefined))?.mtimeMs ?? 0;
      if (lastUsed < cutoff) {
        this.used.delete(dir);
        await rm(dir, { recursive: true, force: true });
      }
    }
  }
}

/** A whole checkout is `<commit>`; one with a shape gets a suffix of its own. */
function shapeSuffix(shape: CheckoutShape): string {
  if (!shape.sparse?.length && !shape.submodules) return '';
  return `-${createHash('sha256').update(JSON.stringify([shape.sparse ?? [], !!shape.submodules])).digest('hex').slice(0, 12)}`;
}
