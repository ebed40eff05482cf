// The local OCI registry: Debian's docker-registry (the CNCF distribution registry) on loopback,
// twice over one storage folder: anonymous on one port, htpasswd basic auth on another. Both speak
// plain HTTP (HelmReleases use `spec.chart.insecure: true`). Every unicorn version is pushed with
// `helm push`, so `oci://…/charts/unicorn` holds what the HTTP repository serves.
import { randomBytes } from 'node:crypto';
import { access, constants, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { stringify } from 'yaml';
import type { Logger } from '../core/log.js';
import { freePorts } from './free-port.js';
import { startDetached, type StartedProcess } from './processes.js';
import { httpGet, waitFor } from './wait.js';

export const DOCKER_REGISTRY = '/usr/bin/docker-registry';
const HTPASSWD = '/usr/bin/htpasswd';

export const REGISTRY_USER = 'helmcrew';

export interface OciRegistries {
  /** oci://127.0.0.1:<port>/charts: anonymous. */
  url: string;
  /** oci://127.0.0.1:<port>/charts: the same charts behind basic auth. */
  authUrl: string;
  username: string;
  /** File holding the auth registry's password (mode 0600). */
  passwordFile: string;
}

export interface OciRegistryOptions {
  stateDir: string;
  /** Packaged unicorn charts (*.tgz) to push. */
  chartsDir: string;
  helmBin: string;
  log: Logger;
  onStarted: (proc: StartedProcess) => void;
}

/** The registry's configuration (distribution 2.8 format). */
export function registryConfig(opts: { port: number; storage: string; htpasswd?: string }): string {
  return stringify({
    version: 0.1,
    log: { level: 'warn', accesslog: { disabled: true } },
    storage: { filesystem: { rootdirectory: opts.storage }, delete: { enabled: true }, maintenance: { uploadpurging: { enabled: false } } },
    http: { addr: `127.0.0.1:${opts.port}`, secret: randomBytes(16).toString('hex') },
    ...(opts.htpasswd ? { auth: { htpasswd: { realm: 'helmcrew-dev', path: opts.htpasswd } } } : {}),
  });
}

async function requireBinary(path: string, pkg: string): Promise<void> {
  await access(path, constants.X_OK).catch(() => {
    throw new Error(`${path} not found: install it with \`apt-get install ${pkg}\` (scripts/setup.sh does)`);
  });
}

/** A bcrypt htpasswd line; the password goes to htpasswd's stdin, never its argv. Cost 5: a dev registry checks it on every request. */
async function htpasswdLine(user: string, password: string): Promise<string> {
  const { stdout } = await execa(HTPASSWD, ['-niB', '-C', '5', user], { input: password });
  return `${stdout.trim()}\n`;
}

export async function startOciRegistries(opts: OciRegistryOptions): Promise<OciRegistries> {
  await requireBinary(DOCKER_REGISTRY, 'docker-registry');
  await requireBinary(HTPASSWD, 'apache2-utils');
  const dir = join(opts.stateDir, 'registry');
  const storage = join(dir, 'storage');
  await rm(dir, { recursive: true, force: true });
  await mkdir(storage, { recursive: true });
  const password = randomBytes(18).toString('base64url');
  const passwordFile = join(dir, 'password');
  await writeFile(passwordFile, password, { mode: 0o600 });
  const htpasswd = join(dir, 'htpasswd');
  await writeFile(htpasswd, await htpasswdLine(REGISTRY_USER, password), { mode: 0o600 });

  const [port, authPort] = await freePorts(2);
  const started: StartedProcess[] = [];
  for (const [name, p, auth] of [
    ['oci-registry', port!, undefined],
    ['oci-registry-auth', authPort!, htpasswd],
  ] as const) {
    const config = join(dir, `${name}.yml`);
    await writeFile(config, registryConfig({ port: p, storage, htpasswd: auth }));
    const proc = await startDetached({ name, command: DOCKER_REGISTRY, args: ['serve', config], stateDir: opts.stateDir });
    opts.onStarted(proc);
    started.push(proc);
    // /v2/ answers 200 anonymously, 401 behind auth: either way the registry serves.
    await waitFor(async () => ([200, 401].includes((await httpGet(`http://127.0.0.1:${p}/v2/`)).status) ? true : 'no answer on /v2/ yet'), {
      label: `${name} /v2/`,
      log: opts.log,
      timeoutMs: 15_000,
      watch: [proc],
    });
  }
  const url = `oci://127.0.0.1:${port}/charts`;
  await pushCharts({ chartsDir: opts.chartsDir, url, helmBin: opts.helmBin, log: opts.log });
  opts.log.info({ url, authUrl: `oci://127.0.0.1:${authPort}/charts` }, 'OCI registries ready');
  return { url, authUrl: `oci://127.0.0.1:${authPort}/charts`, username: REGISTRY_USER, passwordFile };
}

/** `helm push` of every archive in `chartsDir` to `url`. */
export async function pushCharts(opts: { chartsDir: string; url: string; helmBin: string; log: Logger }): Promise<void> {
  const archives = (await readdir(opts.chartsDir)).filter((f) => f.endsWith('.tgz')).sort();
  for (const archive of archives) await pushChart({ archive: join(opts.chartsDir, archive), url: opts.url, helmBin: opts.helmBin });
  opts.log.debug({ url: opts.url, charts: archives.length }, 'pushed charts');
}

/**
 * `helm push` of one archive over plain HTTP, with a throwaway registry config holding `login`
 * when given (a file, as `helm registry login` would write it; never argv).
 */
export async function pushChart(opts: { archive: string; url: string; helmBin: string; login?: { username: string; password: string } }): Promise<void> {
  const home = await mkdtemp(join(tmpdir(), 'helmcrew-push-'));
  try {
    const host = opts.url.replace(/^oci:\/\//, '').split('/')[0]!;
    const auths = opts.login ? { [host]: { auth: Buffer.from(`${opts.login.username}:${opts.login.password}`).toString('base64') } } : {};
    await writeFile(join(home, 'registry.json'), JSON.stringify({ auths }), { mode: 0o600 });
    await execa(opts.helmBin, ['push', opts.archive, opts.url, '--plain-http'], {
      env: {
        HELM_REGISTRY_CONFIG: join(home, 'registry.json'),
        HELM_CACHE_HOME: join(home, 'cache'),
        HELM_CONFIG_HOME: join(home, 'config'),
        DOCKER_CONFIG: home,
      },
    });
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}
