import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { CONTROLLER_ENV } from '../../config.js';

/** gpg's own folders start like the other private folders (private-files.ts), so start-up removes a killed controller's leftovers. */
const PREFIX = 'auth-gpg-';

/**
 * Debian's gpg with a home of its own (a fresh GNUPGHOME per use, removed after): never the
 * controller's user's keys, no agent started (public keys need none), argument arrays only.
 */
export async function withGnupgHome<T>(workDir: string, use: (home: string) => Promise<T>): Promise<T> {
  const home = await mkdtemp(join(workDir, PREFIX));
  try {
    return await use(home);
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

export function gpgEnv(home: string): Record<string, string> {
  return { PATH: CONTROLLER_ENV.in(process.env).raw('PATH') ?? CONTROLLER_ENV.fallback('PATH'), GNUPGHOME: home, LANG: 'C', LC_ALL: 'C' };
}

/** Imports armored public keys into `home`; throws a KeyImportError saying gpg refused them (no key material in it). */
export async function importPublicKeys(gpgBin: string, home: string, armored: string | Buffer): Promise<void> {
  const result = await execa(gpgBin, ['--batch', '--no-tty', '--no-autostart', '--quiet', '--import'], {
    env: gpgEnv(home),
    extendEnv: false,
    input: armored,
    reject: false,
    timeout: 30_000,
  });
  if (result.exitCode !== 0) throw new KeyImportError('gpg could not import them as PGP public keys');
}

/** Armored public keys as the binary keyring helm reads (imported into a fresh home, exported again). */
export async function binaryKeyring(gpgBin: string, workDir: string, armored: Buffer): Promise<Buffer> {
  return withGnupgHome(workDir, async (home) => {
    await importPublicKeys(gpgBin, home, armored);
    const result = await execa(gpgBin, ['--batch', '--no-tty', '--no-autostart', '--export'], {
      env: gpgEnv(home),
      extendEnv: false,
      encoding: 'buffer',
      // Bytes, not text: execa's default drops a last byte 0x0A, and a keyring may end with one
      // (helm then read it as "unexpected EOF").
      stripFinalNewline: false,
      reject: false,
      timeout: 30_000,
      stdin: 'ignore',
    });
    if (result.exitCode !== 0 || result.stdout.length === 0) throw new KeyImportError('gpg exported no public key from them');
    return Buffer.from(result.stdout);
  });
}

export class KeyImportError extends Error {
  override name = 'KeyImportError';
}
