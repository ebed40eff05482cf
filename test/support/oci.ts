import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import type { DevEnvironment } from '../../src/dev/env-file.js';
import { pushChart } from '../../src/dev/oci-registry.js';

/** The packaged unicorn archive of `version` in the environment's chart folder. */
export const unicornArchive = (env: DevEnvironment, version: string) => join(env.stateDir, 'charts', `unicorn-${version}.tgz`);

export async function registryLogin(env: DevEnvironment): Promise<{ username: string; password: string }> {
  return { username: env.ociRegistry.username, password: (await readFile(env.ociRegistry.passwordFile, 'utf8')).trim() };
}

/** `oci://host:port/charts` → `oci://host:port/<path>`: a repository path of a test's own. */
export const registryPath = (url: string, path: string) => url.replace(/\/charts$/, `/${path}`);

/** Pushes unicorn `version` to `url` (the auth registry needs `login`). */
export async function pushUnicorn(env: DevEnvironment, url: string, version: string, login?: { username: string; password: string }): Promise<void> {
  await pushChart({ archive: unicornArchive(env, version), url, helmBin: env.helmBin, ...(login ? { login } : {}) });
}

/**
 * unicorn `from` packaged again as version `as` (another colour under the same version: a moved
 * tag once pushed over the old one), pushed to `url`.
 */
export async function pushRepackaged(env: DevEnvironment, url: string, from: string, as: string): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'helmcrew-repackage-'));
  try {
    await execa('tar', ['-xzf', unicornArchive(env, from), '-C', dir]);
    await execa(env.helmBin, ['package', join(dir, 'unicorn'), '--version', as, '--app-version', `${from}-as-${as}`, '--destination', dir]);
    await pushChart({ archive: join(dir, `unicorn-${as}.tgz`), url, helmBin: env.helmBin });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The environment's plain-HTTP registry as an image repository host (`127.0.0.1:port`). */
export const imageRegistryHost = (env: DevEnvironment) => new URL(env.ociRegistry.url.replace(/^oci:/, 'http:')).host;

/** Pushes a tiny image manifest as `<repo>:<tag>` to a plain-HTTP registry (its own content each time: a new digest). */
export async function pushImageTag(host: string, repo: string, tag: string): Promise<void> {
  const blob = async (content: Buffer) => {
    const digest = `sha256:${createHash('sha256').update(content).digest('hex')}`;
    const started = await fetch(`http://${host}/v2/${repo}/blobs/uploads/`, { method: 'POST' });
    if (started.status !== 202) throw new Error(`${host}/${repo}: blob upload not started (${started.status})`);
    const location = new URL(started.headers.get('location')!, `http://${host}`);
    location.searchParams.set('digest', digest);
    const put = await fetch(location, { method: 'PUT', body: new Uint8Array(content), headers: { 'content-type': 'application/octet-stream' } });
    if (put.status !== 201) throw new Error(`${host}/${repo}: blob not stored (${put.status}: ${await put.text()})`);
    return { digest, size: content.length };
  };
  const config = await blob(Buffer.from(JSON.stringify({ architecture: 'amd64', os: 'linux', tag, at: Date.now() })));
  const layer = await blob(Buffer.from(`layer ${tag} ${Date.now()} ${Math.random()}`));
  const manifest = {
    schemaVersion: 2,
    mediaType: 'application/vnd.oci.image.manifest.v1+json',
    config: { mediaType: 'application/vnd.oci.image.config.v1+json', ...config },
    layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', ...layer }],
  };
  const res = await fetch(`http://${host}/v2/${repo}/manifests/${tag}`, {
    method: 'PUT',
    body: JSON.stringify(manifest),
    headers: { 'content-type': 'application/vnd.oci.image.manifest.v1+json' },
  });
  if (res.status !== 201) throw new Error(`${host}/${repo}:${tag}: manifest not stored (${res.status}: ${await res.text()})`);
}
