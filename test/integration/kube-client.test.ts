import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { loadKubeConfig, makeKubeClients } from '../../src/core/kube/client.js';
import { testEnv } from '../support/fixtures.js';

/** Our own established connections to the API server (ss lists the local process's sockets too). */
function connectionsTo(port: string): number {
  const out = execFileSync('ss', ['-tnp', 'state', 'established', `( dport = :${port} )`]).toString();
  return out.split('\n').filter((line) => line.includes(`pid=${process.pid},`)).length;
}

describe('Kubernetes API clients', () => {
  it('reuse connections instead of a TLS handshake per request', async () => {
    const { env } = testEnv();
    const kc = loadKubeConfig(env.kubeconfig);
    const port = new URL(kc.getCurrentCluster()!.server).port;
    const before = connectionsTo(port);
    const { core } = makeKubeClients(kc);
    for (let i = 0; i < 20; i++) await core.readNamespace({ name: 'default' });
    expect(connectionsTo(port) - before).toBeLessThanOrEqual(2);
  });
});
