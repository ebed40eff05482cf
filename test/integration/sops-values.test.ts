import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import type { HelmReleaseSpec } from '../../src/api/helmrelease.js';
import { QueuedPreviews } from '../../src/session/execute/preview-client.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { waitForEvents } from '../support/events.js';
import { namespaceWithController, testEnv, uniqueName } from '../support/fixtures.js';
import { ageKeygen, sopsEncrypt, type AgeKey } from '../support/sops.js';

/**
 * Issue 34: valuesFrom a SOPS document (age), decrypted in memory by the real sops with the keys
 * spec.decryption names; the cleartext reaches helm and nothing else: no status, Event, log line
 * or preview holds it, and a wrong key names the document, not its contents.
 */
describe('SOPS-encrypted values', () => {
  const { env, kubeConfig } = testEnv();
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const logFile = join(tmpdir(), `${uniqueName('helmcrew-sops-log')}.jsonl`);
  const log = pino({ level: 'debug', base: { component: 'controller' } }, pino.destination({ dest: logFile, sync: true }));
  const { namespace, ctl } = namespaceWithController('sops', {}, log);
  const chart = { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' };
  const decryption = { provider: 'sops' as const, secretRef: { name: 'sops-age' } };
  let key: AgeKey;
  let other: AgeKey;

  const eventsOf = async (name: string) => (await core.listNamespacedEvent({ namespace, fieldSelector: `involvedObject.name=${name}` })).items;
  const logText = () => readFile(logFile, 'utf8');
  const configMap = (name: string, text: string) => core.createNamespacedConfigMap({ namespace, body: { metadata: { name }, data: { 'values.yaml': text } } });
  /** Nothing the controller wrote about the release holds the cleartext. */
  const expectNowhere = async (name: string, cleartext: string) => {
    const release = await waitForReconciled(kubeConfig, namespace, name, 1);
    expect(JSON.stringify(release.status)).not.toContain(cleartext);
    for (const event of await eventsOf(name)) expect(event.message).not.toContain(cleartext);
    expect(await logText()).not.toContain(cleartext);
  };

  beforeAll(async () => {
    [key, other] = await Promise.all([ageKeygen(), ageKeygen()]);
    await core.createNamespacedSecret({ namespace, body: { metadata: { name: 'sops-age' }, stringData: { 'identity.agekey': key.file } } });
  });

  it('a ConfigMap’s SOPS document (YAML) and a Secret’s (JSON) reach helm decrypted, and their cleartext nowhere else', async () => {
    const message = 'Sesame-from-sops-YAML';
    await configMap('enc-values', await sopsEncrypt(`message: ${message}\n`, [key.recipient]));
    const color = 'purple';
    const json = await sopsEncrypt(JSON.stringify({ color, image: { tag: '1.27-alpine' } }), [other.recipient, key.recipient], 'json');
    expect(json).toContain('"sops"');
    await core.createNamespacedSecret({ namespace, body: { metadata: { name: 'enc-json' }, stringData: { 'values.json': json } } });
    const spec = {
      chart,
      decryption,
      valuesFrom: [
        { kind: 'ConfigMap', name: 'enc-values' },
        { kind: 'Secret', name: 'enc-json', valuesKey: 'values.json' },
      ],
    } satisfies Partial<HelmReleaseSpec>;
    const generation = await applyHelmRelease(kubeConfig, helmReleaseObject(namespace, 'plain', spec));
    const release = await waitForReconciled(kubeConfig, namespace, 'plain', generation);
    expect(release.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True', reason: 'InstallSucceeded' });
    const page = await core.readNamespacedConfigMap({ namespace, name: 'plain-page' });
    expect(page.data?.['index.html']).toContain(message);
    expect(page.data?.['index.html']).toContain(color);
    await expectNowhere('plain', message);

    // A preview (the bot's plan) renders with the cleartext and shows none of it.
    const connection = new Redis(env.redisUrl, { maxRetriesPerRequest: null });
    const previews = new QueuedPreviews(connection, ctl.prefix, 60_000);
    try {
      const preview = await previews.preview({ namespace, name: 'plain', version: '2.0.0' });
      expect(preview).toMatchObject({ ok: true });
      expect(JSON.stringify(preview)).not.toContain(message);
    } finally {
      await previews.close();
      connection.disconnect();
    }
  });

  it('a decrypted value helm refuses is redacted from its message, as a Secret’s is', async () => {
    // The chart's schema refuses a colour that is not a lower-case name and quotes it.
    const refused = 'Hunter2-Sops-Colour!';
    await configMap('bad-colour', await sopsEncrypt(`color: ${refused}\n`, [key.recipient]));
    const generation = await applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, 'refused', { chart, decryption, valuesFrom: [{ kind: 'ConfigMap', name: 'bad-colour' }] }),
    );
    const release = await waitForReconciled(kubeConfig, namespace, 'refused', generation);
    const ready = release.status?.conditions?.find((c) => c.type === 'Ready');
    expect(ready).toMatchObject({ status: 'False', reason: 'InstallFailed' });
    expect(ready?.message).toContain('[redacted]');
    await waitForEvents(kubeConfig, namespace, 'refused', ['Warning InstallFailed']);
    await expectNowhere('refused', refused);
  });

  it.each([
    {
      name: 'wrong-key',
      keyFile: () => other.file,
      want: (ns: string) =>
        `ConfigMap ${ns}/for-wrong-key key values.yaml could not be decrypted with the keys of Secret ${ns}/wrong-keys: none of its age keys opens it (a wrong or missing key)`,
    },
    {
      name: 'no-age-key',
      keyFile: () => undefined,
      want: (ns: string) =>
        `ConfigMap ${ns}/for-no-age-key key values.yaml cannot be decrypted: the decryption Secret ${ns}/no-age-key-keys holds no age key (a key ending in .agekey)`,
    },
  ])('$name: ValuesInvalid names the document and the key Secret, never the contents', async ({ name, keyFile, want }) => {
    const secretName = name === 'wrong-key' ? 'wrong-keys' : 'no-age-key-keys';
    const file = keyFile();
    await core.createNamespacedSecret({
      namespace,
      body: { metadata: { name: secretName }, stringData: file ? { 'identity.agekey': file } : { 'identity.txt': key.file } },
    });
    const cleartext = `Never-shown-${name}`;
    // A document of its own per case: each case runs (and fails) alone.
    await configMap(`for-${name}`, await sopsEncrypt(`message: ${cleartext}\n`, [key.recipient]));
    const generation = await applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, name, {
        chart,
        decryption: { provider: 'sops', secretRef: { name: secretName } },
        valuesFrom: [{ kind: 'ConfigMap', name: `for-${name}` }],
      }),
    );
    const release = await waitForReconciled(kubeConfig, namespace, name, generation);
    const ready = release.status?.conditions?.find((c) => c.type === 'Ready');
    expect(ready).toMatchObject({ status: 'False', reason: 'ValuesInvalid', message: want(namespace) });
    await waitForEvents(kubeConfig, namespace, name, ['Warning ValuesInvalid']);
    expect((await eventsOf(name)).map((e) => e.message)).toContain(want(namespace));
    const sopsLines = (await logText()).split('\n').filter((line) => line.includes('sops'));
    for (const line of sopsLines) expect(line).not.toMatch(/AGE-SECRET-KEY|ENC\[/);
    expect(await logText()).not.toContain('Never-shown-');
    expect(await logText()).not.toContain(key.file.match(/AGE-SECRET-KEY-\S+/)![0]);
  });
});
