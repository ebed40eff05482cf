// A tiny static file server for the local chart repository: `chart-server <dir> <port>`.
// Serves the regular files directly inside <dir> (index.yaml, *.tgz) on 127.0.0.1 and answers
// 404 to everything else, including any path that tries to leave <dir>. Sends ETag and
// Last-Modified and answers conditional requests with 304, as real repositories do. In process
// (tests), it can also ask for basic auth and serve HTTPS, with or without client certificates.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const CONTENT_TYPES: Record<string, string> = {
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
  '.tgz': 'application/gzip',
  '.gz': 'application/gzip',
  '.prov': 'text/plain; charset=utf-8',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
};

/** Only a plain file name: no slashes, no dot files (so no `.` or `..`), nothing encoded away. */
const FILE_NAME = /^[A-Za-z0-9_][A-Za-z0-9._+-]*$/;

function log(line: string): void {
  process.stdout.write(`${new Date().toISOString()} ${line}\n`);
}

function send(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** The file in `root` that `rawUrl` names, or undefined when it names none. */
export function fileFor(root: string, rawUrl: string): string | undefined {
  // The raw request target, not a URL-normalised one: `/../x` must not turn into `/x`.
  const path = rawUrl.split('?')[0] ?? '';
  if (!path.startsWith('/')) return undefined;
  let name: string;
  try {
    name = decodeURIComponent(path.slice(1));
  } catch {
    return undefined;
  }
  if (!FILE_NAME.test(name)) return undefined;
  return join(root, name);
}

export interface ChartServerOptions {
  /** Every request must carry these (HTTP basic auth); others get 401. */
  basicAuth?: { username: string; password: string };
  /** Serve HTTPS with this certificate; with `clientCa`, a client certificate it signed is required. PEM. */
  tls?: { cert: Buffer; key: Buffer; clientCa?: Buffer };
  /** Called for every request, for tests that count them. */
  onRequest?: (req: IncomingMessage) => void;
  /** Where each request's line goes; default stdout (the detached server's log file). */
  log?: (line: string) => void;
}

export function createChartServer(root: string, options: ChartServerOptions = {}) {
  const dir = resolve(root);
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    options.onRequest?.(req);
    if (options.basicAuth && !authorized(req, options.basicAuth)) {
      res.setHeader('www-authenticate', 'Basic realm="charts"');
      send(res, 401, 'unauthorized\n');
      return;
    }
    serveFile(dir, req, res, options.log ?? log).catch((error: Error) => {
      (options.log ?? log)(`${req.method} ${req.url}: ${error.message}`);
      if (!res.headersSent) send(res, 500, 'internal error\n');
      else res.destroy(error);
    });
  };
  if (!options.tls) return createServer(handler);
  const { cert, key, clientCa } = options.tls;
  return createHttpsServer({ cert, key, ...(clientCa ? { ca: clientCa, requestCert: true, rejectUnauthorized: true } : {}) }, handler);
}

function authorized(req: IncomingMessage, want: { username: string; password: string }): boolean {
  const given = Buffer.from(req.headers.authorization ?? '');
  const expected = Buffer.from(`Basic ${Buffer.from(`${want.username}:${want.password}`).toString('base64')}`);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** A validator that changes whenever the file does. */
function etagOf(info: { size: number; mtimeMs: number }): string {
  return `W/"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
}

/** Pure: does the request's validator still match the file (If-None-Match wins over If-Modified-Since)? */
export function notModified(headers: IncomingMessage['headers'], etag: string, mtime: Date): boolean {
  const ifNoneMatch = headers['if-none-match'];
  if (ifNoneMatch) return ifNoneMatch.split(',').some((tag) => tag.trim() === etag || tag.trim() === '*');
  const since = Date.parse(headers['if-modified-since'] ?? '');
  return !Number.isNaN(since) && Math.floor(mtime.getTime() / 1000) * 1000 <= since;
}

async function serveFile(dir: string, req: IncomingMessage, res: ServerResponse, log: (line: string) => void): Promise<void> {
  res.on('finish', () => log(`${req.method} ${req.url} ${res.statusCode}`));
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('allow', 'GET, HEAD');
    send(res, 405, 'method not allowed\n');
    return;
  }
  const file = fileFor(dir, req.url ?? '');
  const info = file === undefined ? undefined : await stat(file).catch(() => undefined);
  if (file === undefined || info === undefined || !info.isFile()) {
    send(res, 404, 'not found\n');
    return;
  }
  const etag = etagOf(info);
  const validators = { etag, 'last-modified': info.mtime.toUTCString(), 'cache-control': 'no-cache' };
  if (notModified(req.headers, etag, info.mtime)) {
    res.writeHead(304, validators);
    res.end();
    return;
  }
  res.writeHead(200, {
    'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream',
    'content-length': info.size,
    ...validators,
  });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  createReadStream(file)
    .on('error', (err) => {
      log(`read ${file}: ${err.message}`);
      res.destroy(err);
    })
    .pipe(res);
}

function main(argv: string[]): void {
  const [dir, portArg] = argv;
  const port = Number(portArg);
  if (!dir || !Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write('usage: chart-server <dir> <port>\n');
    process.exit(2);
  }
  const server = createChartServer(dir);
  server.on('error', (err) => {
    log(`server error: ${err.message}`);
    process.exit(1);
  });
  server.listen(port, '127.0.0.1', () => log(`serving ${resolve(dir)} on http://127.0.0.1:${port} (pid ${process.pid})`));
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      log(`${signal}: stopping`);
      server.close(() => process.exit(0));
      setTimeout(() => process.exit(0), 2_000).unref();
    });
  }
}

// Run as a program (node chart-server.js / node --import tsx chart-server.ts), not when imported.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2));
}
