// Free loopback ports, so several environments (and CI jobs) can run side by side.
import { createServer, type Server } from 'node:net';

function listenOnLoopback(): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0, exclusive: true }, () => resolve(server));
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/**
 * `count` distinct free ports on 127.0.0.1. All listeners are held open until every port is
 * chosen, so the kernel cannot hand the same port out twice within one call.
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < count; i++) servers.push(await listenOnLoopback());
    return servers.map((s) => {
      const address = s.address();
      if (address === null || typeof address === 'string') throw new Error('unexpected address');
      return address.port;
    });
  } finally {
    await Promise.all(servers.map(close));
  }
}

export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port!;
}
