import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';

/** One readiness condition: its name is what a failing /readyz names. */
export interface ReadinessCheck {
  name: string;
  ready: () => boolean | Promise<boolean>;
}

/** Pure-ish: the names of the checks that are not ready (a check that throws is not ready). */
export async function failingChecks(checks: readonly ReadinessCheck[]): Promise<string[]> {
  const results = await Promise.all(checks.map(async (check) => ({ name: check.name, ok: await Promise.resolve(check.ready()).catch(() => false) })));
  return results.filter((result) => !result.ok).map((result) => result.name);
}

export interface HealthServer {
  server: Server;
  /** The port it listens on (useful when started on port 0). */
  port: () => number;
  /** More readiness conditions (in `run`, notify's and the bot's join the controller's). */
  addCheck: (check: ReadinessCheck) => void;
  close: () => Promise<void>;
}

/**
 * /healthz: the process answers (liveness only: a Redis outage must not get the pod killed).
 * /readyz: every readiness check passes; 503 names those that do not. /metrics: the registry in
 * Prometheus' text format.
 */
export function startHealthServer(opts: { port: number; host?: string; registry: Registry; checks?: ReadinessCheck[] }): HealthServer {
  const checks = [...(opts.checks ?? [])];
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path === '/healthz') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    if (path === '/readyz') {
      void failingChecks(checks).then((failing) =>
        res.writeHead(failing.length ? 503 : 200, { 'content-type': 'text/plain' }).end(failing.length ? `not ready: ${failing.join(', ')}` : 'ok'),
      );
      return;
    }
    if (path === '/metrics') {
      opts.registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': opts.registry.contentType }).end(text),
        (error: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics failed: ${error.message}`),
      );
      return;
    }
    res.writeHead(404).end();
  });
  server.listen(opts.port, opts.host);
  return {
    server,
    port: () => {
      const address = server.address();
      return typeof address === 'object' && address ? address.port : opts.port;
    },
    addCheck: (check) => void checks.push(check),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
