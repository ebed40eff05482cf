import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, RbacAuthorizationV1Api, type KubernetesObject } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { KubeApiError } from '../../src/core/kube/api-error.js';
import { fromKubeconfigFile, inCluster } from '../../src/core/kube/connection-config.js';
import { apiErrorMessage, isConflict, isForbidden, isNotFound } from '../../src/core/kube/errors.js';
import { KubeEventRecorder } from '../../src/core/kube/event-recorder.js';
import { HelmReleaseApi } from '../../src/core/kube/helmrelease-api.js';
import { mergePatch } from '../../src/core/kube/kube-clients.js';
import { KubeConnection, KubeRest } from '../../src/core/kube/rest-client.js';
import { connectKube, slimKubeClients } from '../../src/core/kube/slim-clients.js';
import { ListWatch, restWatch, type Listed } from '../../src/core/kube/watch/list-watch.js';
import { makeMetadataInformer } from '../../src/controller/watch/metadata-informer.js';
import { NOT_HELM_RECORDS } from '../../src/controller/watch/values-source-watch.js';
import { applyHelmRelease, helmReleaseObject } from '../../src/dev/releases.js';
import { createLogger } from '../../src/core/log.js';
import { ReleaseEvent } from '../../src/api/vocabulary.js';
import { deleteNamespace, freshNamespace, testEnv } from '../support/fixtures.js';
import { eventually } from '../support/eventually.js';

/** Our own established connections to the API server (ss lists the local process's sockets too). */
function connectionsTo(port: string): number {
  const out = execFileSync('ss', ['-tnp', 'state', 'established', `( dport = :${port} )`]).toString();
  return out.split('\n').filter((line) => line.includes(`pid=${process.pid},`)).length;
}

describe('the slim Kubernetes client (controller and notify)', () => {
  const { env, kubeConfig } = testEnv();
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const rest = connectKube(env.kubeconfig);
  const kube = slimKubeClients(rest);
  let namespace: string;

  beforeAll(async () => {
    namespace = await freshNamespace(kubeConfig, 'slim');
  });
  afterAll(async () => {
    await deleteNamespace(kubeConfig, namespace);
  });

  it('creates, reads, lists and replaces Secrets; a second create is a Conflict, a missing one NotFound', async () => {
    const body = { metadata: { name: 'one', labels: { purpose: 'slim-test' } }, data: { key: Buffer.from('v1').toString('base64') } };
    const created = await kube.core.createNamespacedSecret({ namespace, body });
    expect(created.metadata?.uid).toBeTruthy();
    // Plain JSON: a timestamp is the server's string (client-node would make a Date).
    expect(typeof created.metadata?.creationTimestamp).toBe('string');

    const again = await kube.core.createNamespacedSecret({ namespace, body }).catch((error: unknown) => error);
    expect(again).toBeInstanceOf(KubeApiError);
    expect(isConflict(again)).toBe(true);
    expect((again as KubeApiError).status?.reason).toBe('AlreadyExists');
    expect(apiErrorMessage(again)).toMatch(/secrets "one" already exists/);

    const read = await kube.core.readNamespacedSecret({ namespace, name: 'one' });
    read.data = { key: Buffer.from('v2').toString('base64') };
    await kube.core.replaceNamespacedSecret({ namespace, name: 'one', body: read });
    const list = await kube.core.listNamespacedSecret({ namespace, labelSelector: 'purpose=slim-test' });
    expect(list.items.map((s) => [s.metadata?.name, Buffer.from(s.data?.key ?? '', 'base64').toString()])).toEqual([['one', 'v2']]);

    // Replacing with the stale resourceVersion conflicts.
    const stale = await kube.core.replaceNamespacedSecret({ namespace, name: 'one', body: read }).catch((error: unknown) => error);
    expect(isConflict(stale)).toBe(true);
    expect(isNotFound(await kube.core.readNamespacedSecret({ namespace, name: 'nothing' }).catch((error: unknown) => error))).toBe(true);
  });

  it('merge-patches a ConfigMap (null removes a key)', async () => {
    await kube.core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'cm' }, data: { a: '1', b: '2' } } });
    const patched = await kube.core.patchNamespacedConfigMap({ namespace, name: 'cm', body: { data: { b: null, c: '3' } } }, mergePatch);
    expect(patched.data).toEqual({ a: '1', c: '3' });
    expect((await kube.core.readNamespacedConfigMap({ namespace, name: 'cm' })).data).toEqual({ a: '1', c: '3' });
  });

  it('records Events the API server accepts (timestamps as the server wants them)', async () => {
    const release = await applyAndRead('evented');
    await new KubeEventRecorder(kube, createLogger('controller', 'silent')).record(release, ReleaseEvent.InstallFailed, 'all good');
    const events = await core.listNamespacedEvent({ namespace, fieldSelector: 'involvedObject.name=evented' });
    expect(events.items).toHaveLength(1);
    expect(events.items[0]!.message).toBe('all good');
    expect(events.items[0]!.firstTimestamp).toBeInstanceOf(Date); // client-node's reading of what we wrote
  });

  it('the start of an operation is no Kubernetes Event (notify still gets it); its outcome is', async () => {
    const release = await applyAndRead('started');
    const recorder = new KubeEventRecorder(kube, createLogger('controller', 'silent'));
    await recorder.record(release, ReleaseEvent.UpgradeStarted, 'upgrading');
    await recorder.record(release, ReleaseEvent.UpgradeSucceeded, 'upgraded');
    const events = await core.listNamespacedEvent({ namespace, fieldSelector: 'involvedObject.name=started' });
    expect(events.items.map((e) => e.reason)).toEqual(['UpgradeSucceeded']);
  });

  it("the valuesFrom metadata watch leaves Helm's records out and keeps only names and versions", async () => {
    const labels = { owner: 'helm', name: 'rec', status: 'deployed', version: '1' };
    await kube.core.createNamespacedSecret({
      namespace,
      body: { metadata: { name: 'sh.helm.release.v1.rec.v1', labels }, type: 'helm.sh/release.v1', data: { release: 'eA==' } },
    });
    await kube.core.createNamespacedSecret({
      namespace,
      body: { metadata: { name: 'values-source', labels: { team: 'web' } }, data: { 'values.yaml': 'eA==' } },
    });
    const informer = makeMetadataInformer(rest, `/api/v1/namespaces/${namespace}/secrets`, NOT_HELM_RECORDS);
    const added: string[] = [];
    informer.on('add', (obj) => added.push(obj.metadata?.name ?? ''));
    await informer.start();
    try {
      expect(added).toContain('values-source');
      expect(added).not.toContain('sh.helm.release.v1.rec.v1');
      // Watched the same way: a new record is not sent, a new source is.
      await kube.core.createNamespacedSecret({
        namespace,
        body: { metadata: { name: 'sh.helm.release.v1.rec.v2', labels: { ...labels, version: '2' } }, type: 'helm.sh/release.v1', data: { release: 'eA==' } },
      });
      await kube.core.createNamespacedSecret({ namespace, body: { metadata: { name: 'values-later' }, data: { 'values.yaml': 'eA==' } } });
      await eventually(() => expect(added).toContain('values-later'), { timeoutMs: 10_000, intervalMs: 50 }); // the new source
      expect(added.filter((name) => name.startsWith('sh.helm.release'))).toEqual([]);
      const kept = informer.get('values-source', namespace)!;
      expect(Object.keys(kept.metadata!).sort()).toEqual(['name', 'namespace', 'resourceVersion', 'uid']);
    } finally {
      await informer.stop();
    }
  });

  async function applyAndRead(name: string) {
    await applyHelmRelease(
      kubeConfig,
      helmReleaseObject(namespace, name, { chart: { repository: env.chartRepoUrl, name: 'unicorn', version: '1.0.0' }, suspend: true }),
    );
    return (await new HelmReleaseApi(kube).get(namespace, name))!;
  }

  it('reads, lists and patches HelmReleases (JSON patch, status merge patch, a failed test op is 422)', async () => {
    const api = new HelmReleaseApi(kube);
    const release = await applyAndRead('custom');
    expect(release.metadata.name).toBe('custom');
    expect((await api.list(namespace)).items.map((r) => r.metadata.name)).toContain('custom');
    expect((await api.list()).items.some((r) => r.metadata.namespace === namespace)).toBe(true);

    await api.patchStatus(release, { observedGeneration: release.metadata.generation });
    const withFinalizer = await api.addFinalizer(release);
    expect(withFinalizer.metadata.finalizers).toEqual(['helmcrew.dev/finalizer']);
    expect((await api.get(namespace, 'custom'))!.status?.observedGeneration).toBe(release.metadata.generation);
    // The finalizer list changed since it was read: the JSON patch's test op fails (422).
    const stale = { ...withFinalizer, metadata: { ...withFinalizer.metadata, finalizers: ['example.com/other'] } };
    const raced = await api.addFinalizer(stale).catch((error: unknown) => error);
    expect(raced).toBeInstanceOf(KubeApiError);
    expect((raced as KubeApiError).statusCode).toBe(422);
    await api.removeFinalizer(withFinalizer);
    expect((await api.get(namespace, 'custom'))!.metadata.finalizers ?? []).toEqual([]);
    expect(await api.get(namespace, 'absent')).toBeUndefined();
  });

  it('impersonates a ServiceAccount on the shared connection: 403 without the right, the object with it', async () => {
    await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: 'reader' } } });
    await kube.core.createNamespacedSecret({ namespace, body: { metadata: { name: 'guarded' }, stringData: { key: 'x' } } });
    const port = new URL(rest.connection.config.server).port;
    const reader = kube.impersonate(`system:serviceaccount:${namespace}:reader`);
    const before = connectionsTo(port);

    const denied = await reader.core.readNamespacedSecret({ namespace, name: 'guarded' }).catch((error: unknown) => error);
    expect(isForbidden(denied)).toBe(true);
    expect(apiErrorMessage(denied)).toContain(`system:serviceaccount:${namespace}:reader`);

    await kubeConfig.makeApiClient(RbacAuthorizationV1Api).createNamespacedRoleBinding({
      namespace,
      body: {
        metadata: { name: 'reader-view' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'admin' },
        subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace }],
      },
    });
    // Until the binding is in the authorizer's cache the read is still Forbidden (the last error shows it).
    await eventually(async () => expect((await reader.core.readNamespacedSecret({ namespace, name: 'guarded' })).metadata?.name).toBe('guarded'), {
      timeoutMs: 10_000,
      intervalMs: 100,
    });
    // The impersonating client and the controller's own share the pooled connections.
    for (let i = 0; i < 10; i++) {
      await reader.core.readNamespacedSecret({ namespace, name: 'guarded' });
      await kube.core.readNamespacedSecret({ namespace, name: 'guarded' });
    }
    expect(connectionsTo(port) - before).toBeLessThanOrEqual(2);
  });

  it('one pool per server and credentials in a process (controller and notify in `helmcrew run`)', () => {
    expect(connectKube(env.kubeconfig).connection).toBe(rest.connection);
  });

  it('resetConnections drops the pooled connections; the next request opens a new one', async () => {
    await kube.core.readNamespacedSecret({ namespace, name: 'one' });
    const agent = rest.connection.currentAgent();
    const pooled = () => [...Object.values(agent.freeSockets).flat(), ...Object.values(agent.sockets).flat()];
    expect(pooled().length).toBeGreaterThanOrEqual(1);
    rest.resetConnections();
    expect(pooled().every((socket) => socket!.destroyed)).toBe(true);
    expect(rest.connection.currentAgent()).not.toBe(agent);
    expect((await kube.core.readNamespacedSecret({ namespace, name: 'one' })).metadata?.name).toBe('one');
  });

  /** Compacts etcd's history up to now, as the API server does every 5 minutes. */
  async function compactEtcd(): Promise<void> {
    const etcd = inject('devEnv').processes.find((p) => p.name === 'etcd')!;
    const url = (await readFile(`/proc/${etcd.pid}/cmdline`, 'utf8'))
      .split('\0')
      .find((a) => a.startsWith('--listen-client-urls='))!
      .split('=')[1];
    const { metadata } = await rest.request<Listed<KubernetesObject>>({ method: 'GET', path: '/api/v1/namespaces/default/configmaps' });
    const answer = await fetch(`${url}/v3/kv/compaction`, { method: 'POST', body: JSON.stringify({ revision: metadata!.resourceVersion, physical: true }) });
    expect(answer.status).toBe(200);
  }

  it('a watch whose resourceVersion was compacted away (410 Expired) relists and goes on from the new list', async () => {
    // Events: the API server keeps no watch cache for them, so the watch reaches etcd, which
    // has compacted resourceVersion 1 away (other kinds replay it from the watch cache).
    const recorder = new KubeEventRecorder(kube, createLogger('controller', 'silent'));
    const release = await applyAndRead('watched');
    await recorder.record(release, ReleaseEvent.InstallFailed, 'before the watch');
    await compactEtcd();
    const path = `/api/v1/namespaces/${namespace}/events`;
    let lists = 0;
    const list = async (): Promise<Listed<KubernetesObject>> => {
      lists += 1;
      const listed = await rest.request<Listed<KubernetesObject>>({ method: 'GET', path });
      // The first list pretends to be old: its resourceVersion is long compacted.
      return lists === 1 ? { items: [], metadata: { resourceVersion: '1' } } : listed;
    };
    const informer = new ListWatch<KubernetesObject>(list, restWatch(rest, path));
    const added: string[] = [];
    const errors: unknown[] = [];
    informer.on('add', (obj) => added.push((obj as { message?: string }).message ?? ''));
    informer.on('error', (error) => errors.push(error));
    await informer.start();
    try {
      await eventually(() => expect(added).toContain('before the watch'), { timeoutMs: 10_000, intervalMs: 50 }); // the relist after 410
      expect(lists).toBe(2);
      expect(errors).toEqual([]);
      // The watch goes on from the relist's resourceVersion.
      await recorder.record(release, ReleaseEvent.InstallFailed, 'after the relist');
      await eventually(() => expect(added).toContain('after the relist'), { timeoutMs: 10_000, intervalMs: 50 }); // the new Event
      expect(errors).toEqual([]);
      expect(lists).toBe(2);
    } finally {
      await informer.stop();
    }
  });

  it('re-reads a rotated token file (a 401 reads it again at once)', async () => {
    const { status } = await core.createNamespacedServiceAccountToken({
      namespace,
      name: 'reader',
      body: { spec: { audiences: [], expirationSeconds: 3600 } },
    });
    const tokenFile = join(await mkdtemp(join(tmpdir(), 'helmcrew-token-')), 'token');
    await writeFile(tokenFile, 'not-a-valid-token\n');
    const admin = fromKubeconfigFile(env.kubeconfig);
    const connection = new KubeConnection(
      { server: admin.server, ca: admin.ca, insecureSkipTlsVerify: admin.insecureSkipTlsVerify, tokenFile },
      Date.now,
      3_600_000,
    );
    const asToken = slimKubeClients(new KubeRest(connection));

    const unauthorized = await asToken.core.readNamespacedSecret({ namespace, name: 'guarded' }).catch((error: unknown) => error);
    expect(unauthorized).toBeInstanceOf(KubeApiError);
    expect((unauthorized as KubeApiError).statusCode).toBe(401);
    // The kubelet rotates the projected token: the file changes, the cached value is now wrong.
    await writeFile(tokenFile, `${status!.token}\n`);
    expect((await asToken.core.readNamespacedSecret({ namespace, name: 'guarded' })).metadata?.name).toBe('guarded');
  });

  it('in a Pod: the service env, the mounted CA and ServiceAccount token', async () => {
    const { status } = await core.createNamespacedServiceAccountToken({
      namespace,
      name: 'reader',
      body: { spec: { audiences: [], expirationSeconds: 3600 } },
    });
    const mount = await mkdtemp(join(tmpdir(), 'helmcrew-sa-'));
    await writeFile(join(mount, 'token'), status!.token!);
    await writeFile(join(mount, 'ca.crt'), fromKubeconfigFile(env.kubeconfig).ca!);
    const server = new URL(rest.connection.config.server);
    const pod = slimKubeClients(
      new KubeRest(new KubeConnection(inCluster({ KUBERNETES_SERVICE_HOST: server.hostname, KUBERNETES_SERVICE_PORT: server.port }, mount))),
    );
    expect((await pod.core.readNamespacedSecret({ namespace, name: 'guarded' })).metadata?.name).toBe('guarded');
    expect(isForbidden(await pod.core.readNamespacedSecret({ namespace: 'default', name: 'anything' }).catch((error: unknown) => error))).toBe(true);
  });
});
