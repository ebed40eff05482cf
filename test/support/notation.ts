// tools/notation-verify of the toolchain (scripts/build-toolchain.sh), for tests that sign as a
// Notary Project user would: a root CA and a code-signing certificate it issued (`certs`), and
// signatures pushed to the local registry (`sign`: under the referrers tag schema, since the
// registry, distribution 2.8, serves no referrers API).
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { toolchainPaths } from '../../src/dev/paths.js';

export interface NotationSigner {
  /** The signing key and its chain (leaf, then root), as files. */
  keyFile: string;
  chainFile: string;
  /** The root CA's PEM: what a trust store holds. */
  caPem: string;
  /** The leaf certificate's subject as notation prints it (RFC 2253 order). */
  subject: string;
}

/** A signer whose subject is `C=US,ST=WA,L=Seattle,O=<org>,CN=<cn>`. */
export async function notationSigner(org: string, cn: string): Promise<NotationSigner> {
  const dir = await mkdtemp(join(tmpdir(), 'helmcrew-notation-'));
  await execa(toolchainPaths().notationVerify, ['certs', '--subject', `C=US,ST=WA,L=Seattle,O=${org},CN=${cn}`, '--out', dir], { extendEnv: false });
  return {
    keyFile: join(dir, 'leaf.key'),
    chainFile: join(dir, 'leaf.crt'),
    caPem: await readFile(join(dir, 'ca.crt'), 'utf8'),
    subject: `CN=${cn},O=${org},L=Seattle,ST=WA,C=US`,
  };
}

/** Signs `host/path@sha256:…` on a plain-HTTP registry with `signer`. */
export async function notationSign(signer: NotationSigner, reference: string): Promise<void> {
  await execa(toolchainPaths().notationVerify, ['sign', '--plain-http', '--reference', reference, '--key', signer.keyFile, '--cert', signer.chainFile], {
    env: { HOME: join(signer.keyFile, '..'), PATH: '/usr/bin:/bin' },
    extendEnv: false,
  });
}

/** A trust policy for every registry (`*`), strict, trusting the Secret's certificates and `identities` (default any). */
export function trustPolicy(identities: string[] = ['*']): string {
  return JSON.stringify({
    version: '1.0',
    trustPolicies: [
      { name: 'charts', registryScopes: ['*'], signatureVerification: { level: 'strict' }, trustStores: ['ca:helmcrew'], trustedIdentities: identities },
    ],
  });
}
