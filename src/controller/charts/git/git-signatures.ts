import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { GitAccess } from './git-access.js';
import type { GitRunner } from './git-runner.js';
import { gpgEnv, importPublicKeys, KeyImportError, withGnupgHome } from '../verification/gpg-keys.js';
import { allowedSigners, gitKeysFrom } from '../verification/verification-keys.js';
import { gitVerifyOutcome, verificationCacheKey, type VerificationOutcome } from '../verification/verification-outcome.js';

const FETCH_TIMEOUT_MS = 120_000;
const MAX_ENTRIES = 2000;
const FAILURE_TTL_MS = 10 * 60_000;

export type GitVerifyMode = 'HEAD' | 'Tag' | 'TagAndHEAD';

export interface GitSignatureRequest {
  url: string;
  access: GitAccess;
  commit: string;
  /** The tag the ref names (mode Tag and TagAndHEAD check its signature). */
  tag?: string;
  /** A ref name the server hands out when it will not give a commit by its id. */
  refName?: string;
  mode: GitVerifyMode;
  keySecret: { name: string; uid: string; resourceVersion: string; data: Record<string, string> | undefined };
}

/**
 * spec.chart.git.verify: is the commit (and/or its tag) signed by one of the Secret's keys? Checked
 * with Debian's git (verify-commit, verify-tag) in a shallow fetch of its own — PGP keys imported
 * into a fresh GNUPGHOME, SSH keys as gpg.ssh.allowedSignersFile — once per commit, tag, mode and
 * key Secret version; a check at rest reuses the answer.
 */
export class GitSignatures {
  private readonly results = new Map<string, { result: VerificationOutcome; at: number }>();
  private readonly running = new Map<string, Promise<VerificationOutcome>>();

  constructor(
    private readonly runner: GitRunner,
    private readonly root: string,
    private readonly gpgBin = 'gpg',
    private readonly now: () => number = Date.now,
  ) {}

  async verify(req: GitSignatureRequest): Promise<VerificationOutcome> {
    const key = verificationCacheKey({
      artifact: `${req.url}@${req.commit}|${req.tag ?? ''}`,
      mode: req.mode,
      secretUid: req.keySecret.uid,
      secretResourceVersion: req.keySecret.resourceVersion,
    });
    const known = this.results.get(key);
    if (known && (known.result.ok || this.now() - known.at < FAILURE_TTL_MS)) return known.result;
    let running = this.running.get(key);
    if (!running) {
      running = this.check(req)
        .then((result) => {
          this.results.delete(key);
          this.results.set(key, { result, at: this.now() });
          if (this.results.size > MAX_ENTRIES) this.results.delete(this.results.keys().next().value!);
          return result;
        })
        .finally(() => this.running.delete(key));
      this.running.set(key, running);
    }
    return running;
  }

  private async check(req: GitSignatureRequest): Promise<VerificationOutcome> {
    const keys = gitKeysFrom(req.keySecret.data, req.keySecret.name);
    if (!keys.ok) return { ok: false, check: 'key-secret', detail: keys.problem };
    const wantsTag = req.mode !== 'HEAD';
    if (wantsTag && !req.tag) return { ok: false, check: 'no-tag' };
    await mkdir(this.root, { recursive: true, mode: 0o700 });
    const repo = await mkdtemp(join(this.root, '.verify-'));
    try {
      await this.fetch(req, repo);
      return await withGnupgHome(this.root, async (home) => {
        try {
          for (const armored of keys.pgp) await importPublicKeys(this.gpgBin, home, armored);
        } catch (error) {
          if (error instanceof KeyImportError) return { ok: false, check: 'key-secret', detail: `Secret ${req.keySecret.name}: ${error.message}` };
          throw error;
        }
        const signers = allowedSigners(keys.ssh);
        const signersFile = join(home, 'allowed_signers');
        await writeFile(signersFile, signers.file, { mode: 0o600 });
        const opts = { config: ['-c', `gpg.program=${this.gpgBin}`, '-c', `gpg.ssh.allowedSignersFile=${signersFile}`], env: gpgEnv(home) };
        if (wantsTag) {
          const tag = await this.runner.check(['verify-tag', '--raw', `refs/tags/${req.tag!}`], repo, opts);
          const outcome = gitVerifyOutcome('tag', tag.exitCode, tag.stderr, signers.labels);
          if (!outcome.ok || req.mode === 'Tag') return outcome;
        }
        const commit = await this.runner.check(['verify-commit', '--raw', req.commit], repo, opts);
        return gitVerifyOutcome('commit', commit.exitCode, commit.stderr, signers.labels);
      });
    } finally {
      await rm(repo, { recursive: true, force: true });
    }
  }

  /** The commit (and the tag object) alone: a shallow fetch, no checkout. */
  private async fetch(req: GitSignatureRequest, repo: string): Promise<void> {
    await this.runner.local(['init', '-q', '--bare'], repo);
    const fetch = (what: string) =>
      this.runner.remote('fetch', ['fetch', '-q', '--depth', '1', '--no-tags', '--', req.url, what], { url: req.url, access: req.access, cwd: repo, timeoutMs: FETCH_TIMEOUT_MS });
    await fetch(req.commit).catch(async (error: unknown) => {
      if (!req.refName) throw error;
      await fetch(req.refName);
    });
    if (req.mode !== 'HEAD' && req.tag) await fetch(`refs/tags/${req.tag}:refs/tags/${req.tag}`);
  }
}
