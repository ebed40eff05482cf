import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A loopback TCP proxy in front of the API server, for fault tests: `cut()` drops every
 * connection and refuses new ones; `stall()` keeps existing connections open but silent (a dead
 * NAT entry), while new connections work; `delay(ms)` holds every answer that long (a slow server).
 */
export interface TcpProxy {
  port: number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  stall(): void;
  /** Answers from the server reach the client `ms` later, in order. */
  delay(ms: number): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  const live = new Set<{ client: Socket; upstream: Socket }>();
  const stalled = new Set<{ client: Socket; upstream: Socket }>();
  let answerDelayMs = 0;
  const handle = (client: Socket) => {
    const upstream = connect(targetPort, targetHost);
    const pair = { client, upstream };
    live.add(pair);
    const forward = (from: Socket, to: Socket, delayed: boolean) =>
      from.on('data', (chunk) => {
        if (stalled.has(pair)) return;
        if (delayed && answerDelayMs > 0) setTimeout(() => to.writable && to.write(chunk), answerDelayMs);
        else to.write(chunk);
      });
    forward(client, upstream, false);
    forward(upstream, client, true);
    const end = () => {
      live.delete(pair);
      stalled.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  };
  let server: Server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;

  const closeServer = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return {
    port,
    async cut() {
      const closing = closeServer();
      for (const { client, upstream } of live) {
        client.destroy();
        upstream.destroy();
      }
      await closing;
    },
    async restore() {
      server = createServer(handle);
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    },
    stall() {
      for (const pair of live) stalled.add(pair);
    },
    delay(ms: number) {
      answerDelayMs = ms;
    },
    async close() {
      for (const { client, upstream } of live) {
        client.destroy();
        upstream.destroy();
      }
      if (server.listening) await closeServer();
    },
  };
}
