import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { GitAccess } from './git-access.js';
import type { GitRunner } from './git-runner.js';

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
  ) {}

  async checkout(url: string, access: GitAccess, commit: string, refName?: string): Promise<string> {
    const repoDir = join(this.root, createHash('sha256').update(url).digest('hex').slice(0, 16));
    const dir = join(repoDir, commit);
    this.used.set(dir, this.now());
    if (existsSync(dir)) return dir;
    let running = this.making.get(dir);
    if (!running) {
      running = this.make(repoDir, dir, url, access, commit, refName).finally(() => this.making.delete(dir));
      this.making.set(dir, running);
    }
    return running;
  }

  private async make(repoDir: string, dir: string, url: string, access: GitAccess, commit: string, refName?: string): Promise<string> {
    await mkdir(repoDir, { recursive: true, mode: 0o700 });
    const staging = await mkdtemp(join(repoDir, '.fetch-'));
    try {
      await this.runner.local(['init', '-q'], staging);
      const fetch = (what: string) =>
        this.runner.remote('fetch', ['fetch', '-q', '--depth', '1', '--no-tags', '--', url, what], { url, access, cwd: staging, timeoutMs: FETCH_TIMEOUT_MS });
      // Protocol v2 servers hand out a commit by its id; older ones only by a ref's name.
      await fetch(commit).catch(async (error: unknown) => {
        if (!refName) throw error;
        await fetch(refName);
      });
      await this.runner.local(['checkout', '-q', '--detach', commit], staging);
      await rm(join(staging, '.git'), { recursive: true, force: true });
      await rename(staging, dir);
      await this.prune(repoDir, dir);
      return dir;
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
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
