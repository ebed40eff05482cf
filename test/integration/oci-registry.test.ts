import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import type { ResultPromise } from 'execa';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChartRef } from '../../src/api/helmrelease.js';
import { makeKubeClients } from '../../src/core/kube/client.js';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { certPaths } from '../../src/dev/certs.js';
import { applyHelmRelease, helmReleaseObject, waitForReconciled } from '../../src/dev/releases.js';
import { waitForChecks } from '../support/checks.js';
import { waitForReadyCondition } from '../support/eventually.js';
import { waitForEvents } from '../support/events.js';
import { namespaceWithController, testEnv, uniqueName } from '../support/fixtures.js';
import { createSigningSecret, createTeam, deleteTeams, randomKey } from '../support/notify-fixtures.js';
import { pushRepackaged, pushUnicorn, registryLogin, registryPath } from '../support/oci.js';
import { spawnNotify } from '../support/notify-process.js';
import { startTlsTerminator } from '../support/tls-terminator.js';
import { TokenGateway } from '../support/token-gateway.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/** Issue 19: charts from the local OCI registry (Debian's docker-registry), anonymous and behind basic auth. */
describe('OCI registries', () => {
  const { env, kubeConfig } = testEnv();
  const kube = makeKubeClients(kubeConfig);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const storage = new ReleaseStorage(kube);
  const logFile = join(tmpdir(), `${uniqueName('helmcrew-oci-log')}.jsonl`);
  const log = pino({ level: 'debug', base: { component: 'controller' } }, pino.destination({ dest: logFile, sync: true }));
  const { namespace, ctl } = namespaceWithController('oci', {}, log);
  const hookKey = randomKey('oci');
  const receiver = new WebhookReceiver({ '/oci': hookKey });
  const notifyLog = join(tmpdir(), `${uniqueName('helmcrew-oci-notify')}.log`);
  let notify: ResultPromise | undefined;
  let run = '';

  const chart = (over: Partial<ChartRef> = {}): ChartRef => ({ repository: env.ociRegistry.url, name: 'unicorn', version: '1.0.0', insecure: true, ...over });
  const declare = (name: string, c: ChartRef, interval = '10m') =>
    applyHelmRelease(kubeConfig, helmReleaseObject(namespace, name, { chart: c, interval, timeout: '30s' }));
  const pulls = async () => (await ctl.helm.invocations()).filter((args) => args[0] === 'pull');
  const secret = (name: string, stringData: Record<string, string>) => core.createNamespacedSecret({ namespace, body: { metadata: { name }, stringData } });

  beforeAll(async () => {
    await receiver.start();
    run = ctl.prefix;
    // Every event of this namespace goes to a webhook, so the test can read what notify sent.
    await createSigningSecret(kube, namespace, 'oci-hook', hookKey);
    await createTeam(kube, run, `${run}-oci`, {
      subscriptions: [{ namespaces: [namespace] }],
      channels: [{ webhook: { url: receiver.url('/oci'), secretRef: { namespace, name: 'oci-hook' } } }],
    });
    notify = spawnNotify(env, run, notifyLog);
  });
  afterAll(async () => {
    notify?.kill('SIGTERM');
    await notify;
    await receiver.stop();
    await deleteTeams(kube, run);
  });

  it('installs and upgrades from an anonymous registry, pulling by digest', async () => {
    await waitForReconciled(kubeConfig, namespace, 'anon', await declare('anon', chart()));
    expect((await storage.history(namespace, 'anon')).deployed).toMatchObject({ revision: 1, chartVersion: '1.0.0' });
    const pull = (await pulls()).at(-1)!;
    expect(pull[1]).toMatch(/^oci:\/\/127\.0\.0\.1:\d+\/charts\/unicorn@sha256:[0-9a-f]{64}$/);
    expect(pull).toContain('--plain-http');

    const release = await waitForReconciled(kubeConfig, namespace, 'anon', await declare('anon', chart({ version: '2.0.0' })));
    expect(release.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True' });
    expect((await storage.history(namespace, 'anon')).deployed).toMatchObject({ revision: 2, chartVersion: '2.0.0' });
  });

  it('notices a tag moved to a new digest at the next interval, and upgrades to it', async () => {
    const url = registryPath(env.ociRegistry.url, uniqueName('moved'));
    await pushUnicorn(env, url, '1.0.0');
    await waitForReconciled(kubeConfig, namespace, 'moved', await declare('moved', chart({ repository: url }), '1s'));
    expect((await storage.history(namespace, 'moved')).deployed).toMatchObject({ revision: 1, appVersion: '1.0.0' });

    // 1.0.0 is pushed again with other content (3.0.0's green): same tag, new digest.
    await pushRepackaged(env, url, '3.0.0', '1.0.0');
    await waitForEvents(kubeConfig, namespace, 'moved', ['Normal UpgradeSucceeded'], 30_000);
    const deployed = (await storage.history(namespace, 'moved')).deployed;
    expect(deployed).toMatchObject({ revision: 2, chartVersion: '1.0.0', appVersion: '3.0.0-as-1.0.0' });
    // Then it stays: the next intervals find the same digest, and start no helm (three more checks, seen in the ledger).
    const before = (await ctl.helm.invocations()).length;
    const checks = await waitForChecks(env.redisUrl, ctl.prefix, [`${namespace}/moved`], 4, 20_000);
    expect(checks.get(`${namespace}/moved`)!.size).toBeGreaterThanOrEqual(4);
    expect((await ctl.helm.invocations()).slice(before)).toEqual([]);
  });

  it('a broken chart pushed over a tag fails once; the fix pushed over the same tag is attempted again and deployed', async () => {
    const url = registryPath(env.ociRegistry.url, uniqueName('refix'));
    await pushUnicorn(env, url, '1.0.0');
    await waitForReconciled(kubeConfig, namespace, 'refix', await declare('refix', chart({ repository: url }), '1s'));
    await pushRepackaged(env, url, '4.0.0', '1.0.0');
    await waitForReadyCondition(kubeConfig, namespace, 'refix', 'UpgradeFailed', 30_000);
    // Not retried by itself: the same digest failed (no remediation declared); three more checks, seen in the ledger.
    const upgrades = await ctl.helm.count('upgrade');
    const checks = await waitForChecks(env.redisUrl, ctl.prefix, [`${namespace}/refix`], 4, 20_000);
    expect(checks.get(`${namespace}/refix`)!.size).toBeGreaterThanOrEqual(4);
    expect(await ctl.helm.count('upgrade')).toBe(upgrades);
    await pushRepackaged(env, url, '3.0.0', '1.0.0');
    await waitForReadyCondition(kubeConfig, namespace, 'refix', 'UpgradeSucceeded', 30_000);
    expect((await storage.history(namespace, 'refix')).deployed).toMatchObject({ revision: 3, appVersion: '3.0.0-as-1.0.0' });
  });

  it('installs from the registry behind basic auth, with username/password or .dockerconfigjson', async () => {
    const login = await registryLogin(env);
    await secret('registry-login', login);
    const host = env.ociRegistry.authUrl.replace(/^oci:\/\//, '').split('/')[0]!;
    const auth = Buffer.from(`${login.username}:${login.password}`).toString('base64');
    await secret('registry-dockerconfig', { '.dockerconfigjson': JSON.stringify({ auths: { [host]: { auth } } }) });

    await waitForReconciled(
      kubeConfig,
      namespace,
      'basic',
      await declare('basic', chart({ repository: env.ociRegistry.authUrl, secretRef: { name: 'registry-login' } })),
    );
    await waitForReconciled(
      kubeConfig,
      namespace,
      'dockercfg',
      await declare('dockercfg', chart({ repository: env.ociRegistry.authUrl, version: '2.0.0', secretRef: { name: 'registry-dockerconfig' } })),
    );
    expect((await storage.history(namespace, 'basic')).deployed).toMatchObject({ chartVersion: '1.0.0', status: 'deployed' });
    expect((await storage.history(namespace, 'dockercfg')).deployed).toMatchObject({ chartVersion: '2.0.0', status: 'deployed' });
    // helm got the login as a file of a private folder, removed after the pull; never on its command line.
    for (const args of await pulls()) expect(args.join(' ')).not.toContain(login.password);
    const pull = (await pulls()).find((args) => args[1]!.startsWith(env.ociRegistry.authUrl))!;
    const registryConfig = pull[pull.indexOf('--registry-config') + 1]!;
    expect(registryConfig).toMatch(/\/auth-[^/]+\/registry\.json$/);
    expect(existsSync(dirname(registryConfig))).toBe(false);
  });

  it('upgrades within the auth registry after a push there', async () => {
    const login = await registryLogin(env);
    const url = registryPath(env.ociRegistry.authUrl, uniqueName('auth-up'));
    await pushUnicorn(env, url, '1.0.0', login);
    await waitForReconciled(
      kubeConfig,
      namespace,
      'auth-up',
      await declare('auth-up', chart({ repository: url, version: '1.x || 2.x', secretRef: { name: 'registry-login' } }), '3s'),
    );
    expect((await storage.history(namespace, 'auth-up')).deployed).toMatchObject({ chartVersion: '1.0.0' });
    await pushUnicorn(env, url, '2.0.0', login);
    await waitForEvents(kubeConfig, namespace, 'auth-up', ['Normal UpgradeSucceeded'], 30_000);
    expect((await storage.history(namespace, 'auth-up')).deployed).toMatchObject({ revision: 2, chartVersion: '2.0.0' });
  });

  it('a registry that hands out Bearer tokens (as GHCR and Harbor do): installs with the right login, ChartPullFailed with a wrong one', async () => {
    const login = await registryLogin(env);
    const gateway = await new TokenGateway(env.ociRegistry.url.replace(/^oci:\/\/([^/]+).*$/, 'http://$1'), login).start();
    try {
      await secret('gateway-login', login);
      await secret('gateway-wrong', { username: login.username, password: 'not-the-password' });
      await waitForReconciled(
        kubeConfig,
        namespace,
        'bearer',
        await declare('bearer', chart({ repository: gateway.url, secretRef: { name: 'gateway-login' } }), '2s'),
      );
      expect((await storage.history(namespace, 'bearer')).deployed).toMatchObject({ chartVersion: '1.0.0', status: 'deployed' });
      // The controller (tags, digest) and helm (the pull) both went through the token realm, for this repository.
      expect(gateway.tokenRequests.filter((r) => r.ok).length).toBeGreaterThanOrEqual(2);
      expect(gateway.tokenRequests.every((r) => r.service === 'gateway' && r.scope === 'repository:charts/unicorn:pull')).toBe(true);
      // Periodic checks (every 2 s) send the token they have: a HEAD each, no new challenge, no new token.
      const [tokens, challenges, passed] = [gateway.tokenRequests.length, gateway.challenges, gateway.passed];
      await new Promise((r) => setTimeout(r, 7_000));
      expect(gateway.passed - passed).toBeGreaterThanOrEqual(2);
      expect([gateway.tokenRequests.length - tokens, gateway.challenges - challenges]).toEqual([0, 0]);

      await declare('bearer-wrong', chart({ repository: gateway.url, secretRef: { name: 'gateway-wrong' } }));
      const ready = await waitForReadyCondition(kubeConfig, namespace, 'bearer-wrong', 'ChartPullFailed');
      expect(ready.message).toBe(`${gateway.url} refused the credentials in Secret ${namespace}/gateway-wrong (spec.chart.secretRef)`);
    } finally {
      await gateway.stop();
    }
  });

  it('a registry over TLS with a private CA: installs with ca.crt from certSecretRef, refused without it', async () => {
    const certs = certPaths(join(env.stateDir, 'certs'));
    const [ca, cert, key] = await Promise.all([certs.caCert, certs.serverCert, certs.serverKey].map((f) => readFile(f)));
    const authPort = Number(env.ociRegistry.authUrl.replace(/^oci:\/\/127\.0\.0\.1:(\d+).*$/, '$1'));
    const terminator = await startTlsTerminator(authPort, { cert: cert!, key: key! });
    try {
      const url = `oci://127.0.0.1:${terminator.port}/charts`;
      await secret('tls-login', await registryLogin(env));
      await secret('registry-ca', { 'ca.crt': ca!.toString('utf8') });
      await waitForReconciled(
        kubeConfig,
        namespace,
        'tls',
        await declare('tls', { repository: url, name: 'unicorn', version: '2.0.0', secretRef: { name: 'tls-login' }, certSecretRef: { name: 'registry-ca' } }),
      );
      expect((await storage.history(namespace, 'tls')).deployed).toMatchObject({ chartVersion: '2.0.0', status: 'deployed' });
      const pull = (await pulls()).find((args) => args[1]!.startsWith(url))!;
      expect(pull).not.toContain('--plain-http');
      expect(pull[pull.indexOf('--ca-file') + 1]).toMatch(/\/auth-[^/]+\/ca\.crt$/);

      await declare('tls-no-ca', { repository: url, name: 'unicorn', version: '2.0.0', secretRef: { name: 'tls-login' } });
      expect((await waitForReadyCondition(kubeConfig, namespace, 'tls-no-ca', 'ChartPullFailed')).message).toBe(
        `could not fetch the repository index of ${url}`,
      );
    } finally {
      await terminator.close();
    }
  });

  it('wrong credentials: Ready=False ChartPullFailed naming the registry and the Secret; the password appears nowhere', async () => {
    const wrong = `Wrong-${randomKey('pw')}`;
    await secret('registry-wrong', { username: env.ociRegistry.username, password: wrong });
    await declare('wrong', chart({ repository: env.ociRegistry.authUrl, secretRef: { name: 'registry-wrong' } }));
    const ready = await waitForReadyCondition(kubeConfig, namespace, 'wrong', 'ChartPullFailed');
    expect(ready.status).toBe('False');
    expect(ready.message).toContain(env.ociRegistry.authUrl);
    expect(ready.message).toContain(`Secret ${namespace}/registry-wrong`);

    // A missing Secret says so too.
    await declare('no-secret', chart({ repository: env.ociRegistry.authUrl, secretRef: { name: 'no-such-secret' } }));
    const missing = await waitForReadyCondition(kubeConfig, namespace, 'no-secret', 'ChartPullFailed');
    expect(missing.message).toMatch(new RegExp(`Secret ${namespace}/no-such-secret \\(spec.chart.secretRef\\) not found`));

    await waitForEvents(kubeConfig, namespace, 'wrong', ['Warning ChartPullFailed']);
    await receiver.waitFor(
      () => receiver.requests.some((r) => (r.json.release as { name?: string } | undefined)?.name === 'wrong'),
      30_000,
      'the ChartPullFailed notification',
    );

    const password = wrong;
    const release = (await kube.custom.getNamespacedCustomObject({
      group: 'helmcrew.dev',
      version: 'v1alpha1',
      namespace,
      plural: 'helmreleases',
      name: 'wrong',
    })) as object;
    expect(JSON.stringify(release)).not.toContain(password);
    const events = (await core.listNamespacedEvent({ namespace })).items;
    expect(events.length).toBeGreaterThan(0);
    for (const event of events) expect(JSON.stringify(event)).not.toContain(password);
    const logs = (await readFile(logFile, 'utf8')) + (await readFile(notifyLog, 'utf8'));
    expect(logs).toContain('wrong');
    expect(logs).not.toContain(password);
    expect(logs).not.toContain(Buffer.from(`${env.ociRegistry.username}:${password}`).toString('base64'));
    expect(receiver.requests.length).toBeGreaterThan(0);
    for (const request of receiver.requests) expect(request.body).not.toContain(password);
  });
});
