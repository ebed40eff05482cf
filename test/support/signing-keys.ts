import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';

/** A PGP key a test makes in a GNUPGHOME of its own (no passphrase), and its public and secret keyrings as files. */
export interface TestPgpKey {
  home: string;
  uid: string;
  /** The binary public keyring (gpg --export). */
  publicKeyring: Buffer;
  /** Armored public key. */
  armored: string;
  /** The legacy secret keyring helm package --sign reads. */
  secretKeyringFile: string;
}

export async function makePgpKey(uid: string): Promise<TestPgpKey> {
  const home = await mkdtemp(join(tmpdir(), 'hc-gpg-'));
  const env = { ...process.env, GNUPGHOME: home };
  // RSA, not ed25519: about one ed25519 key in ten came out of `--export-secret-keys` with a
  // self-signature helm's OpenPGP reader and gpg's own secring migration both refused ("unexpected
  // EOF", "gpg failed to sign the data"): 6 of 60 keys here, a CI run failed on one.
  await execa('gpg', ['--batch', '--quiet', '--pinentry-mode', 'loopback', '--passphrase', '', '--quick-gen-key', uid, 'rsa2048', 'sign', 'never'], { env });
  const publicKeyring = Buffer.from((await execa('gpg', ['--batch', '--export', uid], { env, encoding: 'buffer' })).stdout);
  const armored = (await execa('gpg', ['--batch', '--armor', '--export', uid], { env })).stdout;
  const secret = Buffer.from((await execa('gpg', ['--batch', '--export-secret-keys', uid], { env, encoding: 'buffer' })).stdout);
  // Beside the GNUPGHOME, not in it: a secring.gpg in a GNUPGHOME makes gpg's next run migrate it into the agent.
  const secretKeyringFile = join(await mkdtemp(join(tmpdir(), 'hc-secring-')), 'secring.gpg');
  await writeFile(secretKeyringFile, secret, { mode: 0o600 });
  return { home, uid, publicKeyring, armored, secretKeyringFile };
}

/** Stops the key's gpg-agent (before its GNUPGHOME goes, or to have gpg start a fresh one). */
export async function stopPgpAgent(key: TestPgpKey): Promise<void> {
  await execa('gpgconf', ['--kill', 'gpg-agent'], { env: { ...process.env, GNUPGHOME: key.home }, reject: false });
}

/** An SSH key pair a test makes (ssh-keygen), with its comment. */
export async function makeSshKey(comment: string): Promise<{ privateKeyFile: string; publicKey: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'hc-ssh-'));
  const file = join(dir, 'id');
  await execa('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', comment, '-f', file]);
  return { privateKeyFile: file, publicKey: (await readFile(`${file}.pub`, 'utf8')).trim() };
}
