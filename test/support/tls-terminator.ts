import { connect } from 'node:net';
import { createServer, type Server } from 'node:tls';

/** TLS on 127.0.0.1 in front of a plain TCP service (the local registry), with the given certificate. PEM. */
export async function startTlsTerminator(targetPort: number, tls: { cert: Buffer; key: Buffer }): Promise<{ port: number; close: () => Promise<void> }> {
  const server: Server = createServer(tls, (client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as { port: number }).port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
