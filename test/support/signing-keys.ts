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
  await execa('gpg', ['--batch', '--quiet', '--pinentry-mode', 'loopback', '--passphrase', '', '--quick-gen-key', uid, 'ed25519', 'sign', 'never'], { env });
  // Keyrings are bytes: execa's default drops a last byte 0x0A, and about one exported ed25519 secret
  // keyring in eight ends with one (helm: "unexpected EOF"; gpg's migration of it: "gpg failed to sign
  // the data"; a CI run failed on one).
  const bytes = { env, encoding: 'buffer', stripFinalNewline: false } as const;
  const publicKeyring = Buffer.from((await execa('gpg', ['--batch', '--export', uid], bytes)).stdout);
  const armored = (await execa('gpg', ['--batch', '--armor', '--export', uid], { env })).stdout;
  const secret = Buffer.from((await execa('gpg', ['--batch', '--export-secret-keys', uid], bytes)).stdout);
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
