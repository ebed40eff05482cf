import { execa, type ResultPromise } from 'execa';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './free-port.js';

/** Debian's Alertmanager (`apt-get install prometheus-alertmanager`; scripts/setup.sh installs it). */
export const ALERTMANAGER_BIN = '/usr/bin/prometheus-alertmanager';

/** An alert as Alertmanager's `GET /api/v2/alerts` lists it (the fields tests read). */
export interface GettableAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt: string;
  generatorURL?: string;
  fingerprint: string;
  status: { state: 'active' | 'suppressed' | 'unprocessed' };
}

export interface LocalAlertmanager {
  /** The base URL, as an Alertmanager channel takes it. */
  url: string;
  /** The alerts it holds that have not ended (resolved alerts are not listed). */
  alerts(): Promise<GettableAlert[]>;
  stop(): Promise<void>;
}

/**
 * A real Alertmanager on 127.0.0.1 and a free port, for tests: no gossip (`--cluster.listen-address=`),
 * its state in a temporary directory removed on stop, one receiver that sends nowhere. It stops by
 * itself after `maxLifetimeSeconds` (coreutils `timeout`), and with the process that started it,
 * so a killed test run leaves none behind.
 */
export async function startAlertmanager(options: { maxLifetimeSeconds?: number; readyTimeoutMs?: number } = {}): Promise<LocalAlertmanager> {
  const dir = await mkdtemp(join(tmpdir(), 'helmcrew-alertmanager-'));
  const port = await freePort();
  const config = join(dir, 'alertmanager.yml');
  await writeFile(config, 'route:\n  receiver: nowhere\nreceivers:\n  - name: nowhere\n');
  const child: ResultPromise = execa(
    'timeout',
    [
      String(options.maxLifetimeSeconds ?? 900),
      ALERTMANAGER_BIN,
      `--config.file=${config}`,
      `--storage.path=${dir}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--cluster.listen-address=',
      '--log.level=warn',
    ],
    { stdout: 'ignore', stderr: { file: join(dir, 'alertmanager.log') }, reject: false },
  );
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    child.kill('SIGTERM');
    await child;
    await rm(dir, { recursive: true, force: true });
  };
  const until = Date.now() + (options.readyTimeoutMs ?? 20_000);
  for (;;) {
    const ready = await fetch(`${url}/-/ready`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) break;
    if (child.exitCode !== null || Date.now() > until) {
      child.kill('SIGTERM'); // its directory stays, for the log
      throw new Error(`Alertmanager did not become ready on ${url} (${ALERTMANAGER_BIN}; log in ${dir}/alertmanager.log)`);
    }
    await sleep(100);
  }
  return {
    url,
    alerts: async () => (await (await fetch(`${url}/api/v2/alerts`)).json()) as GettableAlert[],
    stop,
  };
}
