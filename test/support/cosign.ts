// The real cosign of the toolchain (scripts/build-toolchain.sh), for tests that sign as a user
// would: a key pair from `cosign generate-key-pair`, signatures pushed to the local registry
// without a transparency log (offline), in cosign v3's own bundle format.
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { toolchainPaths } from '../../src/dev/paths.js';

export interface CosignKeyPair {
  /** The private key file (encrypted with `password`). */
  keyFile: string;
  password: string;
  /** The public key's PEM, for a key Secret's `cosign.pub`. */
  publicKey: string;
}

export async function cosignKeyPair(): Promise<CosignKeyPair> {
  const dir = await mkdtemp(join(tmpdir(), 'helmcrew-cosign-'));
  const password = `pw-${Math.random().toString(36).slice(2)}`;
  await execa(toolchainPaths().cosign, ['generate-key-pair', '--output-key-prefix', join(dir, 'cosign')], {
    env: { COSIGN_PASSWORD: password, HOME: dir },
    extendEnv: false,
  });
  return { keyFile: join(dir, 'cosign.key'), password, publicKey: await readFile(join(dir, 'cosign.pub'), 'utf8') };
}

/** Signs `host/path@sha256:…` on a plain-HTTP registry with `pair`, no transparency log. */
export async function cosignSign(pair: CosignKeyPair, reference: string): Promise<void> {
  await execa(
    toolchainPaths().cosign,
    ['sign', '--key', pair.keyFile, '--use-signing-config=false', '--tlog-upload=false', '--allow-http-registry=true', '--yes', reference],
    { env: { COSIGN_PASSWORD: pair.password, HOME: join(pair.keyFile, '..'), PATH: '/usr/bin:/bin' }, extendEnv: false },
  );
}

/** The manifest digest `tag` points at on a plain-HTTP registry (`oci://host/path` → `host/path@sha256:…`). */
export async function ociReference(url: string, tag: string): Promise<string> {
  const repo = url.replace(/^oci:\/\//, '');
  const [host, ...path] = repo.split('/');
  const res = await fetch(`http://${host}/v2/${path.join('/')}/manifests/${tag}`, {
    method: 'HEAD',
    headers: { accept: 'application/vnd.oci.image.manifest.v1+json' },
  });
  const digest = res.headers.get('docker-content-digest');
  if (res.status !== 200 || !digest) throw new Error(`${repo}:${tag}: no digest (${res.status})`);
  return `${repo}@${digest}`;
}
