import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { createLogger } from '../../src/core/log.js';
import { KubeconfigUnusable, type RemoteTarget } from '../../src/controller/reconcile/ports/context.js';
import { RemoteClusters } from '../../src/controller/targets/remote-clusters.js';

/** Issue 32 (A): a target's ports are kept per kubeconfig Secret version; a rotated Secret, or an expired exec credential, makes new ones. */
describe('RemoteClusters', () => {
  const kubeconfig = (server: string, user: Record<string, unknown> = { token: 't' }) =>
    stringify({
      clusters: [{ name: 'c', cluster: { server } }],
      users: [{ name: 'u', user }],
      contexts: [{ name: 'c', context: { cluster: 'c', user: 'u' } }],
      'current-context': 'c',
    });
  const target = (version: string, server = 'https://edge:6443', extra: Partial<RemoteTarget> = {}): RemoteTarget => ({
    kind: 'remote',
    secret: 'apps/edge',
    key: 'value',
    version,
    kubeconfig: kubeconfig(server),
    server,
    ...extra,
  });
  function clusters(opts: { now?: () => number; exec?: () => Promise<{ token: string; expiresAt?: number }> } = {}) {
    const built: string[] = [];
    const remote = new RemoteClusters({
      policy: { allowExec: true },
      connectTimeoutMs: 1000,
      retryAfterMs: 2000,
      log: createLogger('test', 'silent'),
      build: (rest) => (built.push(rest.connection.config.server), { storage: {} as never, helm: {} as never }),
      ...(opts.exec ? { exec: opts.exec } : {}),
      ...(opts.now ? { now: opts.now } : {}),
    });
    return { remote, built };
  }

  it('the same Secret version: the same ports; a rotated one: new ports for the new server', async () => {
    const { remote, built } = clusters();
    const first = await remote.portsFor(target('1'));
    expect(await remote.portsFor(target('1'))).toBe(first);
    const rotated = await remote.portsFor(target('2', 'https://edge-2:6443'));
    expect(rotated).not.toBe(first);
    expect(built).toEqual(['https://edge:6443', 'https://edge-2:6443']);
    expect(rotated).toMatchObject({ name: 'cluster edge (https://edge-2:6443)', retryAfterMs: 2000 });
  });

  it('connects with the short connect time-out', async () => {
    let timeout: number | undefined;
    const remote = new RemoteClusters({
      policy: { allowExec: false },
      connectTimeoutMs: 1234,
      retryAfterMs: 1,
      log: createLogger('test', 'silent'),
      build: (rest) => ((timeout = rest.connection.config.connectTimeoutMs), { storage: {} as never, helm: {} as never }),
    });
    await remote.portsFor(target('1'));
    expect(timeout).toBe(1234);
  });

  it('an exec credential is used for the requests and renewed before it expires', async () => {
    let now = 0;
    let runs = 0;
    const { remote } = clusters({ now: () => now, exec: async () => ({ token: `token-${++runs}`, expiresAt: 10 * 60_000 }) });
    const exec = { command: 'aws', args: [], env: {}, apiVersion: 'client.authentication.k8s.io/v1' };
    const withExec = target('1', 'https://edge:6443', { exec, kubeconfig: kubeconfig('https://edge:6443', { exec: { command: 'aws' } }) });
    const first = await remote.portsFor(withExec);
    now = 5 * 60_000;
    expect(await remote.portsFor(withExec)).toBe(first);
    now = 9.5 * 60_000; // within a minute of expiry
    expect(await remote.portsFor(withExec)).not.toBe(first);
    expect(runs).toBe(2);
  });

  it('a kubeconfig the client cannot use is KubeconfigUnusable, naming the Secret and the field, and is tried again next time', async () => {
    const { remote } = clusters();
    const bad = target('1', 'https://edge:6443', { kubeconfig: kubeconfig('https://edge:6443', { username: 'admin', password: 'hunter2' }) });
    const error = await remote.portsFor(bad).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubeconfigUnusable);
    expect((error as Error).message).toContain('spec.kubeConfig: Secret apps/edge key "value": user "u" uses "username"');
    expect((error as Error).message).not.toContain('hunter2');
    await expect(remote.portsFor(target('1'))).resolves.toBeDefined();
  });
});
