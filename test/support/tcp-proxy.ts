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
    client.on('data', (chunk) => stalled.has(pair) || upstream.write(chunk));
    // Answers held back leave in the order they came, also when the delay is shortened meanwhile.
    const held: { at: number; chunk: Buffer }[] = [];
    let timer: NodeJS.Timeout | undefined;
    const release = () => {
      timer = undefined;
      while (held.length > 0 && held[0]!.at <= Date.now()) {
        const { chunk } = held.shift()!;
        if (client.writable) client.write(chunk);
      }
      if (held.length > 0) timer = setTimeout(release, held[0]!.at - Date.now());
    };
    upstream.on('data', (chunk: Buffer) => {
      if (stalled.has(pair)) return;
      if (answerDelayMs === 0 && held.length === 0) return void client.write(chunk);
      held.push({ at: Math.max(Date.now() + answerDelayMs, held.at(-1)?.at ?? 0), chunk });
      timer ??= setTimeout(release, held[0]!.at - Date.now());
    });
    const end = () => {
      live.delete(pair);
      stalled.delete(pair);
      if (timer) clearTimeout(timer);
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
