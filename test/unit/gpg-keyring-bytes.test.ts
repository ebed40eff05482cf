import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binaryKeyring } from '../../src/controller/charts/verification/gpg-keys.js';

/**
 * A binary keyring is bytes: one that ends with 0x0A must come back whole (execa's default for
 * output drops a final newline, and helm then read the keyring as "unexpected EOF"). A script stands
 * in for gpg here only to fix the last byte; the real gpg path is test/integration/chart-provenance.
 */
describe('binaryKeyring keeps every byte gpg exports', () => {
  let dir = '';
  const exported = Buffer.from([0x99, 0x01, 0x0d, 0x04, 0x0a, 0x00, 0x0a]);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hc-gpg-bytes-'));
    const script = join(dir, 'gpg');
    // --import reads its input and succeeds; --export writes the bytes above, the last one 0x0A.
    await writeFile(script, `#!/bin/sh\ncase "$*" in *--export*) printf '\\231\\001\\015\\004\\012\\000\\012' ;; *) cat >/dev/null ;; esac\n`);
    await chmod(script, 0o755);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('returns the export unchanged, its final 0x0A included', async () => {
    const keyring = await binaryKeyring(join(dir, 'gpg'), dir, Buffer.from('-----BEGIN PGP PUBLIC KEY BLOCK-----\n'));
    expect([...keyring]).toEqual([...exported]);
  });
});
