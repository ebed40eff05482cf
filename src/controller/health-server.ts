import { createServer, type Server } from 'node:http';

/** /healthz (process alive) and /readyz (informers synced) for the kubelet's probes. */
export function startHealthServer(port: number, isReady: () => boolean): Server {
  const server = createServer((req, res) => {
    if (req.url === '/healthz') return void res.writeHead(200).end('ok');
    if (req.url === '/readyz') {
      const ready = isReady();
      return void res.writeHead(ready ? 200 : 503).end(ready ? 'ok' : 'informers not synced');
    }
    res.writeHead(404).end();
  });
  server.listen(port);
  return server;
}
