import { describe, expect, it } from 'vitest';
import { allowedSigners, gitKeysFrom, pgpKeyringFrom } from '../../src/controller/charts/verification/verification-keys.js';

const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');
const ARMORED = '-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmDMEZ\n-----END PGP PUBLIC KEY BLOCK-----\n';
const ED = 'AAAAC3NzaC1lZDI1NTE5AAAAIDqST/ARpGXUDcmFdjPkY5iwR4c3gWBXL+H6q5WKtxr3';

describe('pgpKeyringFrom: pubring.gpg of spec.chart.verify.secretRef', () => {
  it.each([
    {
      name: 'a binary keyring (old-format public-key packet)',
      data: { 'pubring.gpg': b64(Buffer.from([0x99, 0x01, 0x0d])) },
      want: { ok: true, armored: false },
    },
    { name: 'a binary keyring (new-format packet)', data: { 'pubring.gpg': b64(Buffer.from([0xc6, 0x33])) }, want: { ok: true, armored: false } },
    { name: 'armored public keys', data: { 'pubring.gpg': b64(ARMORED) }, want: { ok: true, armored: true } },
    {
      name: 'no pubring.gpg',
      data: { 'keys.asc': b64(ARMORED) },
      want: { ok: false, problem: 'Secret ns/keys has no pubring.gpg (the PGP public keys to trust)' },
    },
    { name: 'no data at all', data: undefined, want: { ok: false, problem: 'Secret ns/keys has no pubring.gpg (the PGP public keys to trust)' } },
    {
      name: 'a private key',
      data: { 'pubring.gpg': b64('-----BEGIN PGP PRIVATE KEY BLOCK-----\nxx\n') },
      want: { ok: false, problem: "Secret ns/keys's pubring.gpg holds a private key: give only public keys" },
    },
    {
      name: 'text that is neither',
      data: { 'pubring.gpg': b64('hello') },
      want: { ok: false, problem: "Secret ns/keys's pubring.gpg is neither a binary PGP keyring nor armored PGP public keys" },
    },
  ])('$name', ({ data, want }) => {
    expect(pgpKeyringFrom(data as Record<string, string> | undefined, 'ns/keys')).toMatchObject(want);
  });
});

describe('gitKeysFrom: the keys of spec.chart.git.verify.secretRef', () => {
  it.each([
    { name: 'armored PGP under any key', data: { 'alice.asc': b64(ARMORED) }, want: { ok: true, pgp: [ARMORED], ssh: [] } },
    {
      name: 'an SSH .pub file with its comment',
      data: { 'bot.pub': b64(`ssh-ed25519 ${ED} ci-bot@example\n`) },
      want: { ok: true, pgp: [], ssh: [{ type: 'ssh-ed25519', key: ED, comment: 'ci-bot@example' }] },
    },
    {
      name: 'authorized_keys lines: options, comments and blank lines',
      data: { authorized_keys: b64(`# team\n\nno-pty,command="x" ssh-ed25519 ${ED} dev one\nssh-ed25519 ${ED}\n`) },
      want: {
        ok: true,
        ssh: [
          { type: 'ssh-ed25519', key: ED, comment: 'dev one' },
          { type: 'ssh-ed25519', key: ED, comment: '' },
        ],
      },
    },
    { name: 'both kinds', data: { a: b64(ARMORED), b: b64(`ssh-ed25519 ${ED} x`) }, want: { ok: true, pgp: [ARMORED], ssh: [{ comment: 'x' }] } },
    { name: 'nothing', data: {}, want: { ok: false, problem: 'Secret ns/k has no PGP (armored) or SSH public keys' } },
    {
      name: 'a line that is no key',
      data: { 'bot.pub': b64('ssh-ed25519 not/base64!\n') },
      want: { ok: false, problem: 'Secret ns/k key bot.pub line 1 is neither an SSH public key nor part of an armored PGP public key' },
    },
    {
      name: 'an SSH private key',
      data: { id: b64('-----BEGIN OPENSSH PRIVATE KEY-----\nxx\n') },
      want: { ok: false, problem: 'Secret ns/k key id holds a private key: give only public keys' },
    },
  ])('$name', ({ data, want }) => {
    expect(gitKeysFrom(data as Record<string, string>, 'ns/k')).toMatchObject(want);
  });
});

describe('allowedSigners', () => {
  it('one line per key under a principal of its own; the comment (or the key type) is what is shown', () => {
    const { file, labels } = allowedSigners([
      { type: 'ssh-ed25519', key: ED, comment: 'ci-bot@example' },
      { type: 'ssh-rsa', key: 'AAAA', comment: '' },
    ]);
    expect(file).toBe(`helmcrew-key-1 ssh-ed25519 ${ED}\nhelmcrew-key-2 ssh-rsa AAAA\n`);
    expect([...labels]).toEqual([
      ['helmcrew-key-1', 'ci-bot@example'],
      ['helmcrew-key-2', 'ssh-rsa key 2'],
    ]);
    expect(allowedSigners([]).file).toBe('');
  });
});
