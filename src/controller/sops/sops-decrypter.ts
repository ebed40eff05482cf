import { createHash } from 'node:crypto';
import { execa } from 'execa';
import type { Logger } from '../../core/log.js';
import { ByteBoundedLru } from '../charts/byte-lru.js';
import { sopsFailure, type SopsFormat } from './sops-document.js';

export type SopsOutcome = { ok: true; cleartext: string } | { ok: false; reason: string };

/** Decrypts one SOPS document in memory (the port a reconcile reaches sops through). */
export interface SopsDecrypt {
  decrypt(document: string, format: SopsFormat, ageKeys: string): Promise<SopsOutcome>;
}

const TIMEOUT_MS = 30_000;
/** Decrypted documents kept in memory, least recently used dropped: a settled release runs no sops per pass. */
const CACHE_BYTES = 16 * 1024 * 1024;
const CACHE_TTL_MS = 60 * 60_000;

/**
 * Runs the real sops (getsops/sops v3) with an argument array: the document on stdin, the cleartext
 * on stdout, the age keys in the child's environment (SOPS_AGE_KEY) and nowhere else. Nothing is
 * written to disk. The child gets an environment of its own — no HOME or XDG folders, so sops finds
 * no keys.txt or ~/.ssh key of the controller's, and no cloud credentials, so only age is tried.
 * sops' stderr is not logged: a parse error quotes the document, whose unencrypted parts may be
 * secrets too; its exit status says enough (sops-document.ts).
 */
export class SopsDecrypter implements SopsDecrypt {
  private readonly cache: ByteBoundedLru<string>;

  constructor(
    private readonly sopsBin: string,
    private readonly log: Logger,
    now: () => number = Date.now,
  ) {
    this.cache = new ByteBoundedLru(CACHE_BYTES, now);
  }

  async decrypt(document: string, format: SopsFormat, ageKeys: string): Promise<SopsOutcome> {
    // Keyed by a digest of the document and the keys: another key set (a rotation) decrypts anew.
    const key = createHash('sha256').update(format).update('\0').update(document).update('\0').update(ageKeys).digest('hex');
    const cached = this.cache.get(key);
    if (cached !== undefined) return { ok: true, cleartext: cached };
    const result = await execa(this.sopsBin, ['decrypt', '--input-type', format, '--output-type', format], {
      input: document,
      env: { SOPS_AGE_KEY: ageKeys, SOPS_DISABLE_VERSION_CHECK: 'true', HOME: '/nonexistent', XDG_CONFIG_HOME: '/nonexistent' },
      extendEnv: false,
      reject: false,
      timeout: TIMEOUT_MS,
      stripFinalNewline: false,
      maxBuffer: 64 * 1024 * 1024,
    });
    if (result.exitCode !== 0 || result.timedOut || result.failed) {
      const reason = result.timedOut
        ? `sops did not finish within ${TIMEOUT_MS / 1000}s`
        : result.exitCode === undefined
          ? `sops could not be started (${this.sopsBin}; SOPS_BIN names it)`
          : sopsFailure(result.exitCode);
      this.log.warn({ action: 'sops decrypt', exitCode: result.exitCode, reason }, 'sops could not decrypt a values document');
      return { ok: false, reason };
    }
    this.cache.set(key, result.stdout, result.stdout.length * 2, CACHE_TTL_MS);
    return { ok: true, cleartext: result.stdout };
  }
}
