import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ChartAccess } from '../../../core/release/desired-release.js';
import { ChartNotFoundError } from '../repository-errors.js';
import { binaryKeyring, KeyImportError } from './gpg-keys.js';
import { pgpKeyringFrom } from './verification-keys.js';
import { verificationCacheKey, type VerificationCheck, type VerificationOutcome } from './verification-outcome.js';

/** What a chart's provenance is checked with: the chart's address and the key Secret as read (as the release's identity). */
export interface ProvenanceRequest {
  /** "namespace/name" of the HelmRelease, for logs. */
  release: string;
  chartName: string;
  version: string;
  archiveUrl: string;
  repository: string;
  access: ChartAccess;
  keySecret: { name: string; uid: string; resourceVersion: string; data: Record<string, string> | undefined };
}

export type ProvenanceResult = { ok: true; archive: string; signedBy: string } | { ok: false; check: VerificationCheck; detail?: string };

export interface ProvenanceChecksOptions {
  workDir: string;
  download: (url: string, repository: string, access: ChartAccess) => Promise<Buffer>;
  verifier: { verify(req: { key: string; archive: string; keyring: string }): Promise<VerificationOutcome> };
  gpgBin?: string;
  now?: () => number;
  /** A failed check is tried again after this long (a repository may fix its .prov); a passed one is kept. */
  failureTtlMs?: number;
}

const MAX_ENTRIES = 2000;

/**
 * spec.chart.verify provider pgp: the archive and its .prov downloaded together, checked by helm
 * (`helm verify`), and the verified archive kept in a folder of its own — the file helm then
 * installs, so what is installed is exactly what was verified. Once per chart version and key
 * Secret version: a check at rest costs nothing.
 */
export class ProvenanceChecks {
  private readonly results = new Map<string, { result: ProvenanceResult; at: number }>();
  private readonly running = new Map<string, Promise<ProvenanceResult>>();
  private readonly now: () => number;

  constructor(private readonly options: ProvenanceChecksOptions) {
    this.now = options.now ?? Date.now;
  }

  async verify(req: ProvenanceRequest): Promise<ProvenanceResult> {
    const key = verificationCacheKey({
      artifact: `${req.archiveUrl}|${req.chartName}@${req.version}`,
      secretUid: req.keySecret.uid,
      secretResourceVersion: req.keySecret.resourceVersion,
    });
    const known = this.results.get(key);
    if (known && this.stillGood(known)) return known.result;
    let running = this.running.get(key);
    if (!running) {
      running = this.check(key, req)
        .then((result) => {
          this.remember(key, result);
          return result;
        })
        .finally(() => this.running.delete(key));
      this.running.set(key, running);
    }
    return running;
  }

  private stillGood(entry: { result: ProvenanceResult; at: number }): boolean {
    if (entry.result.ok) return existsSync(entry.result.archive);
    return this.now() - entry.at < (this.options.failureTtlMs ?? 10 * 60_000);
  }

  private remember(key: string, result: ProvenanceResult): void {
    this.results.delete(key);
    this.results.set(key, { result, at: this.now() });
    if (this.results.size > MAX_ENTRIES) this.results.delete(this.results.keys().next().value!);
  }

  private async check(key: string, req: ProvenanceRequest): Promise<ProvenanceResult> {
    const keys = pgpKeyringFrom(req.keySecret.data, req.keySecret.name);
    if (!keys.ok) return { ok: false, check: 'key-secret', detail: keys.problem };
    const archive = await this.options.download(req.archiveUrl, req.repository, req.access);
    let prov: Buffer;
    try {
      prov = await this.options.download(`${req.archiveUrl}.prov`, req.repository, req.access);
    } catch (error) {
      if (error instanceof ChartNotFoundError) return { ok: false, check: 'no-provenance' };
      throw error;
    }
    let keyring: Buffer;
    try {
      keyring = keys.armored ? await binaryKeyring(this.options.gpgBin ?? 'gpg', this.options.workDir, keys.keyring) : keys.keyring;
    } catch (error) {
      if (error instanceof KeyImportError) return { ok: false, check: 'key-secret', detail: `pubring.gpg of Secret ${req.keySecret.name}: ${error.message}` };
      throw error;
    }
    const root = join(this.options.workDir, 'verified');
    await mkdir(root, { recursive: true, mode: 0o700 });
    const staging = await mkdtemp(join(root, '.check-'));
    try {
      // The .prov names the archive by its file name: keep the repository's.
      const file = join(staging, archiveFileName(req.archiveUrl, req.chartName, req.version));
      await writeFile(file, archive, { mode: 0o600 });
      await writeFile(`${file}.prov`, prov, { mode: 0o600 });
      await writeFile(join(staging, 'pubring.gpg'), keyring, { mode: 0o600 });
      const outcome = await this.options.verifier.verify({ key: req.release, archive: file, keyring: join(staging, 'pubring.gpg') });
      if (!outcome.ok) return outcome;
      const dir = join(root, key.slice(0, 32));
      await rm(dir, { recursive: true, force: true });
      await rename(staging, dir);
      return { ok: true, archive: join(dir, file.slice(staging.length + 1)), signedBy: outcome.signedBy };
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  }
}

/** The archive's file name in the repository (what helm package named it, and the .prov names), made safe for a path. */
export function archiveFileName(archiveUrl: string, chartName: string, version: string): string {
  let last: string;
  try {
    last = decodeURIComponent(new URL(archiveUrl).pathname.split('/').pop() ?? '');
  } catch {
    last = '';
  }
  return /^[A-Za-z0-9][A-Za-z0-9._+-]*\.tgz$/.test(last) ? last : `${chartName}-${version}.tgz`;
}
