// Git servers on loopback for tests and benches: smart HTTP (git http-backend run as a CGI by a
// small node server, optionally behind basic auth) and SSH (Debian's sshd on a free port with a
// generated host key and one authorized key). Both serve the bare repositories under one folder.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa, type ResultPromise } from 'execa';
import { freePort } from './free-port.js';

export interface GitHttpServer {
  /** http://127.0.0.1:<port>: a repository is <url>/<name>.git. */
  url: string;
  /** Requests by kind: `refs` is each connection's ref advertisement (GET …/info/refs), `upload-pack` each command after it. */
  requests: { refs: number; uploadPack: number; refused: number };
  stop(): Promise<void>;
}

/** Serves the bare repositories under `root`; with `basicAuth`, only to that user and password. */
export async function startGitHttpServer(root: string, opts: { basicAuth?: { username: string; password: string } } = {}): Promise<GitHttpServer> {
  const requests = { refs: 0, uploadPack: 0, refused: 0 };
  const expected = opts.basicAuth ? `Basic ${Buffer.from(`${opts.basicAuth.username}:${opts.basicAuth.password}`).toString('base64')}` : undefined;
  const server: Server = createServer((req, res) => {
    if (expected && req.headers.authorization !== expected) {
      requests.refused++;
      res.writeHead(401, { 'www-authenticate': 'Basic realm="git"' }).end();
      return;
    }
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname.endsWith('/info/refs')) requests.refs++;
    if (url.pathname.endsWith('/git-upload-pack')) requests.uploadPack++;
    serveCgi(root, req, res, url).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function serveCgi(root: string, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  const result = await execa('git', ['http-backend'], {
    input: body,
    encoding: 'buffer',
    // A pack's bytes as git wrote them: execa's default drops a last byte 0x0A.
    stripFinalNewline: false,
    reject: false,
    env: {
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      REQUEST_METHOD: req.method ?? 'GET',
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      CONTENT_LENGTH: String(body.length),
      HTTP_CONTENT_ENCODING: String(req.headers['content-encoding'] ?? ''),
      GIT_PROTOCOL: String(req.headers['git-protocol'] ?? ''),
      REMOTE_ADDR: '127.0.0.1',
      REMOTE_USER: 'git',
    },
  });
  const out = Buffer.from(result.stdout);
  const split = out.indexOf('\r\n\r\n') >= 0 ? out.indexOf('\r\n\r\n') : out.indexOf('\n\n');
  const gap = out.indexOf('\r\n\r\n') >= 0 ? 4 : 2;
  const headers: Record<string, string> = {};
  let status = 200;
  for (const line of out.subarray(0, split).toString('latin1').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === 'status') status = Number(value.split(' ')[0]);
    else headers[name] = value;
  }
  res.writeHead(status, headers).end(out.subarray(split + gap));
}

export interface GitSshServer {
  /** ssh://root@127.0.0.1:<port>: a repository is <url><root>/<name>.git. */
  url: string;
  port: number;
  /** The line for a known_hosts file (`[127.0.0.1]:<port> ssh-ed25519 …`). */
  knownHosts: string;
  /** The private key sshd accepts. */
  identity: string;
  /** Another private key, which sshd does not accept. */
  otherIdentity: string;
  /** Its public key (`ssh-ed25519 AAAA…`): a host key that is not this server's, for a wrong known_hosts. */
  otherPublicKey: string;
  stop(): Promise<void>;
}

/** Debian's sshd on 127.0.0.1 and a free port, accepting one generated key for the current user (the test runs git as it). */
export async function startGitSshServer(stateDir: string): Promise<GitSshServer> {
  const dir = join(stateDir, 'sshd');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // sshd refuses to start without its privilege separation folder.
  await mkdir('/run/sshd', { recursive: true, mode: 0o755 }).catch(() => undefined);
  const keygen = (file: string) => execa('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'helmcrew-test', '-f', file]);
  await Promise.all([keygen(join(dir, 'host_key')), keygen(join(dir, 'client_key')), keygen(join(dir, 'other_key'))]);
  await writeFile(join(dir, 'authorized_keys'), await readFile(join(dir, 'client_key.pub')), { mode: 0o600 });
  const port = await freePort();
  const config = [
    `ListenAddress 127.0.0.1`,
    `HostKey ${join(dir, 'host_key')}`,
    `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
    `PidFile ${join(dir, 'sshd.pid')}`,
    'PasswordAuthentication no',
    'KbdInteractiveAuthentication no',
    'PubkeyAuthentication yes',
    'PermitRootLogin prohibit-password',
    'StrictModes no',
    'UsePAM no',
    // git asks for protocol v2 through this variable (ssh -o SendEnv=GIT_PROTOCOL).
    'AcceptEnv GIT_PROTOCOL',
  ].join('\n');
  await writeFile(join(dir, 'sshd_config'), `${config}\n`);
  const sshd: ResultPromise = execa('/usr/sbin/sshd', ['-D', '-e', '-f', join(dir, 'sshd_config'), '-p', String(port)], { reject: false, stdin: 'ignore' });
  for (let tries = 0; ; tries++) {
    const scan = await execa('ssh-keyscan', ['-p', String(port), '-t', 'ed25519', '127.0.0.1'], { reject: false });
    if (scan.stdout.includes('ssh-ed25519')) break;
    if (tries > 75 || sshd.exitCode !== null) throw new Error(`sshd did not answer on 127.0.0.1:${port}`);
    await sleep(200);
  }
  const hostKey = (await readFile(join(dir, 'host_key.pub'), 'utf8')).trim().split(' ').slice(0, 2).join(' ');
  const user = (await execa('id', ['-un'])).stdout.trim();
  return {
    url: `ssh://${user}@127.0.0.1:${port}`,
    port,
    knownHosts: `[127.0.0.1]:${port} ${hostKey}\n`,
    identity: await readFile(join(dir, 'client_key'), 'utf8'),
    otherIdentity: await readFile(join(dir, 'other_key'), 'utf8'),
    otherPublicKey: (await readFile(join(dir, 'other_key.pub'), 'utf8')).trim().split(' ').slice(0, 2).join(' '),
    stop: async () => {
      sshd.kill('SIGTERM');
      await sshd;
    },
  };
}
