// Pushes a tiny image manifest to a local registry (plain HTTP, no auth), as the image-proposals
// integration test does; the content comes from `content`, so the same content pushed to several
// repositories has the same digest (every repository's 1.0.0 is one image).
import { createHash } from 'node:crypto';

const sha256 = (data: Buffer | string) => `sha256:${createHash('sha256').update(data).digest('hex')}`;

/** Pushes `<repository>:<tag>` to the registry at `host` (host:port); returns the manifest's digest. */
export async function pushImageTag(host: string, repository: string, tag: string, content: string): Promise<string> {
  const blob = async (data: Buffer) => {
    const digest = sha256(data);
    const started = await fetch(`http://${host}/v2/${repository}/blobs/uploads/`, { method: 'POST' });
    if (started.status !== 202) throw new Error(`push ${repository}:${tag}: upload start answered ${started.status}`);
    const location = new URL(started.headers.get('location')!, `http://${host}`);
    location.searchParams.set('digest', digest);
    const put = await fetch(location, { method: 'PUT', body: new Uint8Array(data), headers: { 'content-type': 'application/octet-stream' } });
    if (put.status !== 201) throw new Error(`push ${repository}:${tag}: blob upload answered ${put.status}: ${await put.text()}`);
    return { digest, size: data.length };
  };
  const config = await blob(Buffer.from(JSON.stringify({ architecture: 'amd64', os: 'linux', content })));
  const layer = await blob(Buffer.from(`layer ${content}`));
  const manifest = JSON.stringify({
    schemaVersion: 2,
    mediaType: 'application/vnd.oci.image.manifest.v1+json',
    config: { mediaType: 'application/vnd.oci.image.config.v1+json', ...config },
    layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', ...layer }],
  });
  const res = await fetch(`http://${host}/v2/${repository}/manifests/${tag}`, {
    method: 'PUT',
    body: manifest,
    headers: { 'content-type': 'application/vnd.oci.image.manifest.v1+json' },
  });
  if (res.status !== 201) throw new Error(`push ${repository}:${tag}: manifest answered ${res.status}: ${await res.text()}`);
  return res.headers.get('docker-content-digest') ?? sha256(manifest);
}
