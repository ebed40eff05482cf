import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { KubeClients } from './client.js';
import { isConflict, isNotFound } from './errors.js';

/** The Secret holding the key of the values digest, in the controller's own namespace. */
export const DIGEST_KEY_SECRET = 'helmcrew-values-digest-key';
const KEY_FIELD = 'key';
const SERVICE_ACCOUNT_NAMESPACE_FILE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

/** The configured namespace (HELMCREW_NAMESPACE), else the pod's own in a cluster, else "default" (local runs). */
export function controllerNamespace(configured: string | undefined): string {
  if (configured) return configured;
  try {
    return readFileSync(SERVICE_ACCOUNT_NAMESPACE_FILE, 'utf8').trim() || 'default';
  } catch {
    return 'default';
  }
}

/**
 * Gets the shared digest key, creating it on first start. Race-safe: when two replicas start at
 * once, one create wins (409 for the other), and both then read the same key.
 */
export async function getOrCreateDigestKey(kube: KubeClients, namespace: string): Promise<Buffer> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const existing = await readKey(kube, namespace);
    if (existing) return existing;
    try {
      await kube.core.createNamespacedSecret({
        namespace,
        body: {
          metadata: { name: DIGEST_KEY_SECRET, labels: { 'app.kubernetes.io/managed-by': 'helmcrew' } },
          type: 'Opaque',
          data: { [KEY_FIELD]: randomBytes(32).toString('base64') },
        },
      });
    } catch (error) {
      if (!isConflict(error)) throw error;
    }
  }
  throw new Error(`Secret ${namespace}/${DIGEST_KEY_SECRET} has no usable "${KEY_FIELD}" (at least 16 bytes)`);
}

async function readKey(kube: KubeClients, namespace: string): Promise<Buffer | undefined> {
  try {
    const secret = await kube.core.readNamespacedSecret({ namespace, name: DIGEST_KEY_SECRET });
    const key = Buffer.from(secret.data?.[KEY_FIELD] ?? '', 'base64');
    return key.length >= 16 ? key : undefined;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}
