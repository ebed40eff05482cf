/**
 * Pure: the keys a verification Secret holds. spec.chart.verify (pgp) reads `pubring.gpg`, a binary
 * keyring or armored public keys (helm reads only the binary kind: the armored one is converted);
 * spec.chart.git.verify reads armored PGP public keys and SSH public keys (`*.pub`, authorized_keys
 * lines) under any key. Messages name the Secret and the key, never the contents.
 */

const ARMORED_PUBLIC = '-----BEGIN PGP PUBLIC KEY BLOCK-----';
const PRIVATE_MARKERS = ['PRIVATE KEY-----', '-----BEGIN PGP PRIVATE KEY BLOCK-----'];

export type PgpKeyring = { ok: true; keyring: Buffer; armored: boolean } | { ok: false; problem: string };

/** `pubring.gpg` of a Secret's data (base64 values, as the API server answers). */
export function pgpKeyringFrom(data: Record<string, string> | undefined, secret: string): PgpKeyring {
  const encoded = data?.['pubring.gpg'];
  if (!encoded) return { ok: false, problem: `Secret ${secret} has no pubring.gpg (the PGP public keys to trust)` };
  const bytes = Buffer.from(encoded, 'base64');
  const text = bytes.toString('latin1');
  if (PRIVATE_MARKERS.some((m) => text.includes(m))) return { ok: false, problem: `Secret ${secret}'s pubring.gpg holds a private key: give only public keys` };
  if (text.includes(ARMORED_PUBLIC)) return { ok: true, keyring: bytes, armored: true };
  // An OpenPGP packet starts with a tag byte whose high bit is set; 0x99/0x98 and 0xc6 are public-key packets.
  if (bytes.length > 0 && (bytes[0]! === 0x99 || bytes[0]! === 0x98 || bytes[0]! === 0xc6)) return { ok: true, keyring: bytes, armored: false };
  return { ok: false, problem: `Secret ${secret}'s pubring.gpg is neither a binary PGP keyring nor armored PGP public keys` };
}

export interface SshPublicKey {
  type: string;
  key: string;
  /** The key's comment (often user@host), shown as who signed; may be empty. */
  comment: string;
}

export type GitKeys = { ok: true; pgp: string[]; ssh: SshPublicKey[] } | { ok: false; problem: string };

const SSH_KEY_TYPE = /^(ssh-ed25519|ssh-rsa|ssh-dss|ecdsa-sha2-nistp(256|384|521)|sk-ssh-ed25519@openssh\.com|sk-ecdsa-sha2-nistp256@openssh\.com)$/;

/** The PGP and SSH public keys of a git.verify Secret, in the order of its keys. */
export function gitKeysFrom(data: Record<string, string> | undefined, secret: string): GitKeys {
  const pgp: string[] = [];
  const ssh: SshPublicKey[] = [];
  for (const name of Object.keys(data ?? {}).sort()) {
    const text = Buffer.from(data![name]!, 'base64').toString('utf8');
    if (PRIVATE_MARKERS.some((m) => text.includes(m))) return { ok: false, problem: `Secret ${secret} key ${name} holds a private key: give only public keys` };
    if (text.includes(ARMORED_PUBLIC)) {
      pgp.push(text);
      continue;
    }
    const lines = text.split('\n').map((l) => l.trim());
    for (const [i, line] of lines.entries()) {
      if (line === '' || line.startsWith('#')) continue;
      const parsed = sshKeyLine(line);
      if (!parsed) return { ok: false, problem: `Secret ${secret} key ${name} line ${i + 1} is neither an SSH public key nor part of an armored PGP public key` };
      ssh.push(parsed);
    }
  }
  if (pgp.length === 0 && ssh.length === 0) return { ok: false, problem: `Secret ${secret} has no PGP (armored) or SSH public keys` };
  return { ok: true, pgp, ssh };
}

/** An authorized_keys line: options may come before the key type; the comment is what follows the key. */
function sshKeyLine(line: string): SshPublicKey | undefined {
  const words = line.split(/\s+/);
  const at = words.findIndex((w) => SSH_KEY_TYPE.test(w));
  if (at < 0) return undefined;
  const key = words[at + 1];
  if (!key || !/^[A-Za-z0-9+/]+={0,3}$/.test(key)) return undefined;
  return { type: words[at]!, key, comment: words.slice(at + 2).join(' ') };
}

/**
 * git's gpg.ssh.allowedSignersFile: one line per key under a principal of our own (git asks
 * ssh-keygen which principal holds the signing key), and what each principal is shown as.
 */
export function allowedSigners(keys: readonly SshPublicKey[]): { file: string; labels: Map<string, string> } {
  const labels = new Map<string, string>();
  const lines = keys.map((k, i) => {
    const principal = `helmcrew-key-${i + 1}`;
    labels.set(principal, k.comment || `${k.type} key ${i + 1}`);
    return `${principal} ${k.type} ${k.key}`;
  });
  return { file: lines.length ? `${lines.join('\n')}\n` : '', labels };
}
