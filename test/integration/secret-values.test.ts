import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { CoreV1Api } from '@kubernetes/client-node';
import { readControllerConfig } from '../../src/controller/config.js';
import { startControllerWithNotify } from '../../src/cli/compose/controller-with-notify.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { DIGEST_KEY_SECRET, getOrCreateDigestKey } from '../../src/core/kube/digest-key.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { canonicalJson } from '../../src/core/release/values.js';
import { applyHelmRelease, ensureNamespace, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { createLogger } from '../../src/core/log.js';
import { waitForEvents } from '../support/events.js';
import { deleteNamespace, namespaceWithController, testEnv, uniqueName } from '../support/fixtures.js';
import { eventually } from '../support/eventually.js';
import { CONTROLLER_RIGHTS_SETTINGS } from '../../src/dev/dev-settings.js';

/** Issue 5, "Secrets stay secret": Secret values never reach status, Events, logs or the disk for good. */
describe('Secret values stay secret', () => {
  const { env, kubeConfig } = testEnv();
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const api = new HelmReleaseApi(makeKubeClients(kubeConfig));
  const logFile = join(tmpdir(), `${uniqueName('helmcrew-secret-log')}.jsonl`);
  const log = pino({ level: 'debug', base: { component: 'controller' } }, pino.destination({ dest: logFile, sync: true }));
  const { namespace, ctl } = namespaceWithController('secret', {}, log);
  const chart = { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' };

  const secretFile = async (name: string, text: string) =>
    core.createNamespacedSecret({ namespace, body: { metadata: { name }, stringData: { 'values.yaml': text } } });
  const eventsOf = async (name: string) => (await core.listNamespacedEvent({ namespace, fieldSelector: `involvedObject.name=${name}` })).items;

  it.each([
    // helm's schema check quotes the refused value
    { name: 'schema', secret: 'Hunter2-Color!', text: 'color: Hunter2-Color!\n', reason: 'InstallFailed', about: /color/ },
    // the API server's message quotes the refused value (containerPort out of range)
    { name: 'apiserver', secret: '80800', text: 'containerPort: 80800\n', reason: 'InstallFailed', about: /containerPort|ports/ },
  ])('a Secret value refused by $name appears in no status, Event or log line', async ({ name, secret, text, reason, about }) => {
    await secretFile(`${name}-values`, text);
    const generation = await applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, name, { chart, valuesFrom: [{ kind: 'Secret', name: `${name}-values` }] }),
    );
    const release = await waitForReconciled(kubeConfig, namespace, name, generation);
    const ready = release.status?.conditions?.find((c) => c.type === 'Ready');
    expect(ready).toMatchObject({ status: 'False', reason });
    expect(JSON.stringify(release.status)).not.toContain(secret);
    expect(ready?.message).toMatch(about); // still says what is wrong
    expect(ready?.message).toContain('[redacted]');

    await waitForEvents(kubeConfig, namespace, name, [`Warning ${reason}`]);
    const events = await eventsOf(name);
    expect(events.map((e) => e.reason)).toContain(reason);
    for (const event of events) expect(event.message).not.toContain(secret);

    const lines = (await readFile(logFile, 'utf8')).split('\n').filter((line) => line.includes(name));
    expect(lines.some((line) => line.includes('helm failed'))).toBe(true);
    for (const line of lines) expect(line).not.toContain(secret);
  });

  it('status digests are keyed: not the plain sha256 of the values', async () => {
    // the install the API server refused left a failed revision in helm's history
    const release = await api.get(namespace, 'apiserver');
    const values = { containerPort: 80800 };
    const plain = createHash('sha256').update(canonicalJson(values)).digest('hex');
    const digests = [release?.status?.lastAttemptedValuesDigest, ...(release?.status?.history ?? []).map((h) => h.valuesDigest)];
    expect(digests.length).toBeGreaterThan(1);
    for (const digest of digests) {
      expect(digest).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
      expect(digest).not.toContain(plain);
    }
  });

  it('replicas starting at once share one digest key', async () => {
    const keyNamespace = uniqueName('digest-key');
    await ensureNamespace(kubeConfig, keyNamespace);
    try {
      const kube = makeKubeClients(kubeConfig);
      const keys = await Promise.all(Array.from({ length: 5 }, () => getOrCreateDigestKey(kube, keyNamespace)));
      expect(new Set(keys.map((k) => k.toString('hex'))).size).toBe(1);
      expect(keys[0]!.length).toBe(32);
      const stored = await core.readNamespacedSecret({ namespace: keyNamespace, name: DIGEST_KEY_SECRET });
      expect(Buffer.from(stored.data!.key!, 'base64').equals(keys[0]!)).toBe(true);
    } finally {
      await deleteNamespace(kubeConfig, keyNamespace);
    }
  });

  it('values never touch the disk: nothing in the work dir holds them while helm upgrades', async () => {
    const secret = 's3cr3t-message-on-disk';
    await secretFile('message-values', `message: ${secret}\n`);
    const spec = (replicaCount: number) => ({ chart, valuesFrom: [{ kind: 'Secret' as const, name: 'message-values' }], values: { replicaCount } });
    await waitForReconciled(kubeConfig, namespace, 'ondisk', await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'ondisk', spec(1))));
    const workDir = join(dirname(ctl.helm.bin), 'work');
    await ctl.helm.setUpgradeDelay(6);
    try {
      const generation = await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'ondisk', spec(2)));
      await eventually(async () => expect(await ctl.helm.count('upgrade')).toBe(1), { timeoutMs: 30_000, intervalMs: 100 });
      // helm upgrade is running (held by the shim): look at every file under the work dir
      const files = await listFiles(workDir);
      expect(files.filter((f) => /(^|\/)values-/.test(f.slice(workDir.length)))).toEqual([]);
      for (const file of files) expect({ file, holds: (await readFile(file)).includes(secret) }).toEqual({ file, holds: false });
      const release = await waitForReconciled(kubeConfig, namespace, 'ondisk', generation);
      expect(release.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    } finally {
      await ctl.helm.setUpgradeDelay(0);
    }
  });

  it('a values file left by a killed controller does not survive a controller start', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'helmcrew-leftover-'));
    const workDir = join(dir, 'work');
    const leftover = join(workDir, 'values-Ab12Cd', 'values.yaml');
    await mkdir(dirname(leftover), { recursive: true });
    await writeFile(leftover, 'password: left-behind-by-sigkill\n', { mode: 0o600 });
    const config = readControllerConfig({
      KUBECONFIG: env.kubeconfig,
      REDIS_URL: env.redisUrl,
      HELM_BIN: env.helmBin,
      WATCH_NAMESPACES: namespace,
      ...CONTROLLER_RIGHTS_SETTINGS,
      HELMCREW_QUEUE_PREFIX: uniqueName('hc-leftover'),
      HELMCREW_WORK_DIR: workDir,
    });
    const controller = await startControllerWithNotify(config, createLogger('controller', 'warn'));
    try {
      expect(existsSync(dirname(leftover))).toBe(false);
      expect((await readdir(workDir)).filter((name) => name.startsWith('values-'))).toEqual([]);
    } finally {
      await controller.stop();
    }
  });
});

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}
