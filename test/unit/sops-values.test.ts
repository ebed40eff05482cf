import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HelmRelease } from '../../src/api/helmrelease.js';
import { composeValues, ValuesError, type ValuesPorts } from '../../src/controller/reconcile/desired/values-from.js';
import { SopsDecrypter, type SopsDecrypt } from '../../src/controller/sops/sops-decrypter.js';
import { decryptionKeys, sopsFailure, sopsFormat } from '../../src/controller/sops/sops-document.js';
import type { KubeClients } from '../../src/core/kube/client.js';
import { KubeApiError } from '../../src/core/kube/api-error.js';

const b64 = (text: string) => Buffer.from(text).toString('base64');
const AGE_KEY = 'AGE-SECRET-KEY-1QQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQ';
// The shape sops writes (values replaced by ENC[…], metadata under `sops`); the fake decrypter below reads `plain`.
const sopsYaml = (plain: string) =>
  `db:\n  password: ENC[AES256_GCM,data:xx,iv:yy,tag:zz,type:str]\nsops:\n  age:\n    - recipient: age1abc\n      enc: "..."\n  lastmodified: "2026-11-26T16:00:00Z"\n  mac: ENC[AES256_GCM,data:mm,type:str]\n  version: 3.13.3\n  plain: ${JSON.stringify(plain)}\n`;

describe('SOPS documents, without sops', () => {
  it.each([
    { name: 'a SOPS YAML document', text: sopsYaml('a: 1'), want: 'yaml' },
    {
      name: 'a SOPS JSON document',
      text: '{"a": "ENC[…]", "sops": {"mac": "ENC[…]", "lastmodified": "2026-11-26T16:00:00Z", "version": "3.13.3"}}',
      want: 'json',
    },
    { name: 'plain values', text: 'replicas: 2\nimage: { tag: "1.0" }\n', want: undefined },
    { name: 'values with a key named sops but no SOPS metadata', text: 'sops:\n  enabled: true\n', want: undefined },
    { name: 'a sops map without lastmodified', text: 'sops:\n  mac: x\n', want: undefined },
    { name: 'text that is not YAML', text: 'sops: [\n', want: undefined },
  ])('$name → $want', ({ text, want }) => {
    expect(sopsFormat(text)).toBe(want);
  });

  it('takes every age identity of the keys ending in .agekey, without age-keygen’s comments, and names the PGP keys', () => {
    const keys = decryptionKeys({
      'a.agekey': b64(`# created: 2026-11-26\n# public key: age1abc\n${AGE_KEY}\n`),
      'b.agekey': b64(`${AGE_KEY.replace(/Q$/, 'P')}\r\n\r\n`),
      'old.asc': b64('-----BEGIN PGP PRIVATE KEY BLOCK-----'),
      README: b64('AGE-SECRET-KEY-1NOTTAKEN'),
    });
    expect(keys.ageKeys).toBe(`${AGE_KEY}\n${AGE_KEY.replace(/Q$/, 'P')}`);
    expect(keys.pgpKeyNames).toEqual(['old.asc']);
    expect(decryptionKeys(undefined)).toEqual({ ageKeys: '', pgpKeyNames: [] });
  });

  it('says what sops’ exit status means', () => {
    expect(sopsFailure(128)).toMatch(/wrong or missing key/);
    expect(sopsFailure(51)).toMatch(/changed after it was encrypted/);
    expect(sopsFailure(3)).toBe('sops failed (exit 3)');
  });
});

describe('composeValues with SOPS documents (fake sops, fake API)', () => {
  const release = (spec: Partial<HelmRelease['spec']>): HelmRelease => ({
    apiVersion: 'helmcrew.dev/v1alpha1',
    kind: 'HelmRelease',
    metadata: { name: 'web', namespace: 'shop' },
    spec: { chart: { repository: 'https://x.test', name: 'unicorn' }, ...spec },
  });
  const decryption = { provider: 'sops' as const, secretRef: { name: 'sops-age' } };
  /** The API: a ConfigMap and a Secret holding SOPS documents, the key Secret, and a count of its reads. */
  const world = (keySecret: Record<string, string> | null = { 'identity.agekey': b64(AGE_KEY) }) => {
    const reads = { keys: 0 };
    const kube = {
      core: {
        readNamespacedConfigMap: async ({ name }: { name: string }) => ({
          data: { 'values.yaml': name === 'plain' ? 'color: blue\n' : sopsYaml('db:\n  password: Open-Sesame-42\n') },
        }),
        readNamespacedSecret: async ({ name }: { name: string }) => {
          if (name === 'sops-age') {
            reads.keys++;
            if (!keySecret) throw new KubeApiError(404, undefined, 'GET', `/api/v1/namespaces/shop/secrets/${name}`);
            return { data: keySecret };
          }
          return { data: { 'values.yaml': b64(sopsYaml('api:\n  token: Tok-en-99-secret\n')) } };
        },
      },
    } as unknown as KubeClients;
    return { kube, reads };
  };
  /** Decrypts only with AGE_KEY: "cleartext" is what sopsYaml was given. */
  const sops: SopsDecrypt & { calls: string[] } = {
    calls: [],
    async decrypt(document, format, ageKeys) {
      this.calls.push(format);
      if (!ageKeys.split('\n').includes(AGE_KEY)) return { ok: false, reason: sopsFailure(128) };
      return { ok: true, cleartext: JSON.parse(/plain: (".*")/.exec(document)![1]!) as string };
    },
  };
  const compose = (ports: ValuesPorts, spec: Partial<HelmRelease['spec']>) => composeValues(ports, release(spec));

  it('decrypts a ConfigMap’s and a Secret’s SOPS document, merges them in order, reads the keys once, and treats the cleartext as secret', async () => {
    const { kube, reads } = world();
    const composed = await compose(
      { kube, sops },
      {
        decryption,
        valuesFrom: [
          { kind: 'ConfigMap', name: 'plain' },
          { kind: 'ConfigMap', name: 'enc' },
          { kind: 'Secret', name: 'enc' },
        ],
        values: { replicas: 2 },
      },
    );
    expect(composed.values).toEqual({ color: 'blue', db: { password: 'Open-Sesame-42' }, api: { token: 'Tok-en-99-secret' }, replicas: 2 });
    expect(composed.secrets.list()).toEqual(expect.arrayContaining(['Open-Sesame-42', 'Tok-en-99-secret']));
    // A plain ConfigMap stays plain.
    expect(composed.secrets.list()).not.toContain('blue');
    expect(reads.keys).toBe(1);
  });

  it('puts a decrypted document at a targetPath', async () => {
    const { kube } = world();
    const composed = await compose({ kube, sops }, { decryption, valuesFrom: [{ kind: 'ConfigMap', name: 'enc', targetPath: 'config' }] });
    expect(composed.values).toEqual({ config: 'db:\n  password: Open-Sesame-42\n' });
  });

  it.each([
    {
      name: 'no spec.decryption',
      spec: {},
      keys: { 'identity.agekey': b64(AGE_KEY) },
      want: /^ConfigMap shop\/enc key values\.yaml is SOPS-encrypted and spec\.decryption names no key/,
    },
    {
      name: 'a key Secret that is missing',
      spec: { decryption },
      keys: null,
      want: /^ConfigMap shop\/enc key values\.yaml cannot be decrypted: the decryption Secret shop\/sops-age was not found$/,
    },
    {
      name: 'a key Secret with only PGP keys',
      spec: { decryption },
      keys: { 'team.asc': b64('pgp') },
      want: /cannot be decrypted: the decryption Secret shop\/sops-age holds no age key \(a key ending in \.agekey\) \(only PGP keys: team\.asc; helmcrew decrypts with age\)$/,
    },
    {
      name: 'a wrong key',
      spec: { decryption },
      keys: { 'identity.agekey': b64(AGE_KEY.replace(/Q$/, 'Z')) },
      want: /^ConfigMap shop\/enc key values\.yaml could not be decrypted with the keys of Secret shop\/sops-age: none of its age keys opens it \(a wrong or missing key\)$/,
    },
  ] as Array<{ name: string; spec: Partial<HelmRelease['spec']>; keys: Record<string, string> | null; want: RegExp }>)(
    '$name: the message names the document, never its contents',
    async ({ spec, keys, want }) => {
      const { kube } = world(keys);
      const error = await compose({ kube, sops }, { ...spec, valuesFrom: [{ kind: 'ConfigMap', name: 'enc' }] }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValuesError);
      expect((error as Error).message).toMatch(want);
      expect((error as Error).message).not.toMatch(/Open-Sesame|ENC\[|AGE-SECRET/);
    },
  );

  it('a controller without sops says so', async () => {
    const { kube } = world();
    await expect(compose({ kube }, { decryption, valuesFrom: [{ kind: 'Secret', name: 'enc' }] })).rejects.toThrow(
      'Secret shop/enc key values.yaml is SOPS-encrypted and this controller has no sops to decrypt it',
    );
  });
});

describe('SopsDecrypter runs sops as it should (a stand-in sops that reports what it got)', () => {
  let dir = '';
  let bin = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'helmcrew-sops-unit-'));
    bin = join(dir, 'sops');
    // Prints its arguments, whether HOME and the key reached it, and its stdin; exits 128 for the key "wrong".
    await writeFile(
      bin,
      `#!/bin/sh\necho "$*" >> "${dir}/calls"\n[ "$SOPS_AGE_KEY" = wrong ] && { echo "secret quoted on stderr" >&2; exit 128; }\necho "args: $*"\necho "home: \${HOME}"\necho "key: $SOPS_AGE_KEY"\necho "aws: \${AWS_ACCESS_KEY_ID:-none}"\ncat\n`,
      { mode: 0o755 },
    );
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('passes the document on stdin and the keys in its own environment, and decrypts each document and key set once', async () => {
    const decrypter = new SopsDecrypter(bin, pino({ level: 'silent' }));
    // The controller's own credentials (a cloud key here) do not reach sops.
    process.env.AWS_ACCESS_KEY_ID = 'AKIA-controller-own';
    const first = await decrypter.decrypt('doc: 1\n', 'yaml', 'AGE-SECRET-KEY-1A').finally(() => delete process.env.AWS_ACCESS_KEY_ID);
    expect(first).toEqual({
      ok: true,
      cleartext: 'args: decrypt --input-type yaml --output-type yaml\nhome: /nonexistent\nkey: AGE-SECRET-KEY-1A\naws: none\ndoc: 1\n',
    });
    expect(await decrypter.decrypt('doc: 1\n', 'yaml', 'AGE-SECRET-KEY-1A')).toEqual(first);
    await decrypter.decrypt('{"doc": 1}', 'json', 'AGE-SECRET-KEY-1A');
    await decrypter.decrypt('doc: 1\n', 'yaml', 'AGE-SECRET-KEY-1B');
    expect((await readFile(join(dir, 'calls'), 'utf8')).trim().split('\n')).toEqual([
      'decrypt --input-type yaml --output-type yaml',
      'decrypt --input-type json --output-type json',
      'decrypt --input-type yaml --output-type yaml',
    ]);
  });

  it('a failure is its exit status’ meaning, never sops’ words; a missing sops says which setting names it', async () => {
    const decrypter = new SopsDecrypter(bin, pino({ level: 'silent' }));
    expect(await decrypter.decrypt('doc: 1\n', 'yaml', 'wrong')).toEqual({ ok: false, reason: sopsFailure(128) });
    const missing = new SopsDecrypter(join(dir, 'no-such-sops'), pino({ level: 'silent' }));
    expect(await missing.decrypt('doc: 1\n', 'yaml', 'k')).toEqual({
      ok: false,
      reason: `sops could not be started (${join(dir, 'no-such-sops')}; SOPS_BIN names it)`,
    });
  });
});
