import { Writable } from 'node:stream';
import { ApiException } from '@kubernetes/client-node';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { KubeConnection, KubeRest } from '../../src/core/kube/rest-client.js';
import { CRD_MISSING_MESSAGE, InformerSupervisor } from '../../src/controller/watch/informer-supervisor.js';

/** Log lines as objects, from a pino logger writing into memory. */
function memoryLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { log: pino({ level: 'debug' }, stream), lines };
}

describe('controller against a cluster without the CRD', () => {
  it('says the CRD is missing and how to install it, once per backoff, not "HTTP 404"', async () => {
    const rest = new KubeRest(new KubeConnection({ server: 'https://127.0.0.1:1', insecureSkipTlsVerify: true }));
    // The API server's answer when a CRD is not installed: a 404 on the list.
    const api = { listPage: async () => Promise.reject(new ApiException(404, 'HTTP-Code: 404', '404 page not found', {})) } as unknown as HelmReleaseApi;
    const { log, lines } = memoryLogger();
    const supervisor = new InformerSupervisor({ rest, api, namespaces: [], onKey: () => undefined, log, silenceMs: 600_000 });
    await supervisor.start();
    await new Promise((resolve) => setTimeout(resolve, 3500));
    await supervisor.stop();

    const about = lines.filter((l) => typeof l.msg === 'string' && l.msg.includes('CRD'));
    expect(about.length).toBeGreaterThanOrEqual(1);
    // Backoff 1 s, 2 s, …: at most three in 3.5 s, never a tight loop.
    expect(about.length).toBeLessThanOrEqual(3);
    expect(about[0]!.msg).toBe(CRD_MISSING_MESSAGE);
    expect(about[0]!.msg).toMatch(/helmreleases\.helmcrew\.dev.*helmcrew crds apply/);
    expect(lines.some((l) => JSON.stringify(l).includes('HTTP 404'))).toBe(false);
    expect(supervisor.ready).toBe(false);
  }, 10_000);
});
