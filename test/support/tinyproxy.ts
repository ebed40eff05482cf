import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { freePort } from '../../src/dev/free-port.js';
import { pollUntil } from '../../src/dev/harness/poll.js';

/** Debian's tinyproxy on a free 127.0.0.1 port, with basic auth and a request log of its own (not the Debian service). */
export interface TestProxy {
  /** http://127.0.0.1:port */
  address: string;
  username: string;
  password: string;
  /** The proxy's log so far: one line per request it took (`Request (file descriptor …): GET http://…`, `CONNECT …`). */
  log(): Promise<string>;
  stop(): Promise<void>;
}

export async function startTinyproxy(): Promise<TestProxy> {
  const dir = await mkdtemp(join(tmpdir(), 'helmcrew-tinyproxy-'));
  // tinyproxy drops to User/Group when started as root: its log must be writable by them.
  await chmod(dir, 0o777);
  const port = await freePort();
  const [username, password] = ['proxy-user', `pw-${Math.random().toString(36).slice(2)}`];
  const logFile = join(dir, 'tinyproxy.log');
  await writeFile(
    join(dir, 'tinyproxy.conf'),
    [
      'User nobody',
      'Group nogroup',
      `Port ${port}`,
      'Listen 127.0.0.1',
      'Timeout 60',
      `LogFile "${logFile}"`,
      'LogLevel Connect',
      'MaxClients 20',
      'Allow 127.0.0.1',
      `BasicAuth ${username} ${password}`,
      'DisableViaHeader Yes',
      '',
    ].join('\n'),
  );
  const proc: ResultPromise = execa('tinyproxy', ['-d', '-c', join(dir, 'tinyproxy.conf')], { reject: false, stdio: 'ignore' });
  const address = `http://127.0.0.1:${port}`;
  await pollUntil(
    // A TCP connect: tinyproxy drops a request that is not a proxy request without an answer.
    () =>
      new Promise<true | undefined>((resolve) => {
        const socket = connect(port, '127.0.0.1', () => {
          socket.destroy();
          resolve(true);
        });
        socket.on('error', () => resolve(undefined));
      }),
    { timeoutMs: 10_000 },
    () => `tinyproxy did not listen on ${address}`,
  );
  return {
    address,
    username,
    password,
    log: () => readFile(logFile, 'utf8').catch(() => ''),
    stop: async () => {
      proc.kill('SIGTERM');
      await proc;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
