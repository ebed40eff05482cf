import { request } from 'node:https';
import { request as httpRequest } from 'node:http';
import type { KubeConfig } from '@kubernetes/client-node';
import { FIELD_MANAGER } from '../../api/vocabulary.js';

/**
 * Server-side apply of a raw object. The generated client drops keys it has no model field
 * for (like `x-kubernetes-validations` in a CRD schema), so CRDs are sent as plain JSON.
 */
export async function serverSideApply(kc: KubeConfig, path: string, body: unknown): Promise<unknown> {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('the kubeconfig has no current cluster');
  const url = new URL(`${cluster.server.replace(/\/+$/, '')}${path}`);
  url.searchParams.set('fieldManager', FIELD_MANAGER);
  url.searchParams.set('force', 'true');
  const payload = JSON.stringify(body);
  const options: Parameters<typeof request>[1] = {
    method: 'PATCH',
    headers: { 'Content-Type': 'application/apply-patch+yaml', Accept: 'application/json', 'Content-Length': Buffer.byteLength(payload) },
  };
  await kc.applyToHTTPSOptions(options);
  const send = url.protocol === 'https:' ? request : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if ((res.statusCode ?? 500) >= 300) {
          const message = (() => {
            try {
              return (JSON.parse(text) as { message?: string }).message ?? text;
            } catch {
              return text;
            }
          })();
          reject(new Error(`apply ${path} failed (HTTP ${res.statusCode}): ${message}`));
        } else resolve(text ? JSON.parse(text) : undefined);
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}
