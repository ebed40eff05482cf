import { RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReleaseStorage } from '../../src/core/helm-storage/release-storage.js';
import { connectKube, slimKubeClients } from '../../src/core/kube/slim-clients.js';
import { deleteNamespace, freshNamespace, testEnv } from '../support/fixtures.js';

/**
 * Issue 36: a release's records read by name (a GET each, as the record watch names them) are the
 * records the label-selected LIST returns; and whenever the names cannot stand for the LIST — a
 * record gone, a superseded one when those are left out, a GET the identity may not make — the
 * answer is "LIST instead" (undefined), never an error. Real helm writes the records.
 */
describe('release records read by name', () => {
  const { env, kubeConfig } = testEnv();
  const kube = slimKubeClients(connectKube(env.kubeconfig));
  const storage = new ReleaseStorage(kube);
  const v = (revision: number) => `sh.helm.release.v1.unicorn.v${revision}`;
  let namespace = '';
  let version = '';

  beforeAll(async () => {
    namespace = await freshNamespace(kubeConfig, 'by-name');
    const helm = (verb: string, message: string) =>
      execa(
        env.helmBin,
        [verb, 'unicorn', 'unicorn', '--repo', env.chartRepoUrl, '--version', '1.0.0', '--namespace', namespace, '--set', `message=${message},replicaCount=0`],
        { env: { KUBECONFIG: env.kubeconfig } },
      );
    await helm('install', 'first');
    await helm('upgrade', 'second');
    version = (await kube.core.readNamespacedSecret({ namespace, name: v(2) })).metadata!.resourceVersion!;
  });

  afterAll(async () => {
    if (namespace) await deleteNamespace(kubeConfig, namespace);
  });

  it('gives the history and records the LIST gives, whole or without the superseded record', async () => {
    const listed = await storage.historyAndRecords(namespace, 'unicorn', { notOlderThan: version });
    const byName = await storage.historyOfRecords(namespace, 'unicorn', [v(1), v(2)], { notOlderThan: version });
    expect(byName?.history.releases.map((r) => [r.revision, r.status, r.config])).toEqual(listed.history.releases.map((r) => [r.revision, r.status, r.config]));
    expect(byName?.history.deployed?.config).toEqual({ message: 'second', replicaCount: 0 });
    expect(byName?.records.map((r) => r.name).sort()).toEqual(listed.records.map((r) => r.name).sort());

    const newest = await storage.historyOfRecords(namespace, 'unicorn', [v(2)], { notOlderThan: version, withoutSuperseded: true });
    expect(newest?.history.releases.map((r) => r.revision)).toEqual([2]);
  });

  it('says "LIST instead" for a record gone, a superseded one left out, or another release\'s name', async () => {
    expect(await storage.historyOfRecords(namespace, 'unicorn', [v(2), v(7)], { notOlderThan: version })).toBeUndefined();
    expect(await storage.historyOfRecords(namespace, 'unicorn', [v(1), v(2)], { notOlderThan: version, withoutSuperseded: true })).toBeUndefined();
    expect(await storage.historyOfRecords(namespace, 'other', [v(2)], { notOlderThan: version })).toBeUndefined();
  });

  it('a record that must be absent (the next revision, when the watch is behind): "LIST instead" if it exists', async () => {
    expect(await storage.historyOfRecords(namespace, 'unicorn', [v(1)], { notOlderThan: version, absent: v(2) })).toBeUndefined();
    const both = await storage.historyOfRecords(namespace, 'unicorn', [v(1), v(2)], { notOlderThan: version, absent: v(3) });
    expect(both?.history.latest?.revision).toBe(2);
  });

  it('an identity that may LIST its records but not GET one: "LIST instead", and the LIST reads them', async () => {
    const user = 'records-list-only';
    const rbac = kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    await rbac.createNamespacedRole({
      namespace,
      body: { metadata: { name: user }, rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['list'] }] },
    });
    await rbac.createNamespacedRoleBinding({
      namespace,
      body: {
        metadata: { name: user },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: user },
        subjects: [{ kind: 'User', name: user }],
      },
    });
    const listOnly = storage.withClients(kube.impersonate(user));
    // RBAC is in force once the LIST is allowed (the binding reaches the authorizer's cache).
    await expect
      .poll(async () => (await listOnly.historyAndRecords(namespace, 'unicorn').catch(() => undefined))?.history.latest?.revision, { timeout: 10_000 })
      .toBe(2);
    expect(await listOnly.historyOfRecords(namespace, 'unicorn', [v(1), v(2)], { notOlderThan: version })).toBeUndefined();
    // Nothing to GET, and the absent one may not be asked for: "LIST instead", never "no records".
    expect(await listOnly.historyOfRecords(namespace, 'unicorn', [], { notOlderThan: version, absent: v(3) })).toBeUndefined();
  });
});
