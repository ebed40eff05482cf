import { describe, expect, it } from 'vitest';
import { inventoryOf, withInventory } from '../../src/controller/reconcile/decide/inventory.js';

/** Issue 24: status.inventory as Flux lists it: <namespace>_<name>_<group>_<kind> and the version. */
describe('status.inventory', () => {
  it('lists the manifest objects, the release namespace for namespaced ones, none for cluster-scoped kinds', () => {
    const manifest = [
      '---\n# Source: unicorn/templates/service.yaml\napiVersion: v1\nkind: Service\nmetadata: { name: unicorn }\n',
      '---\napiVersion: apps/v1\nkind: Deployment\nmetadata: { name: unicorn, namespace: other }\n',
      '---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: { name: reader }\n',
      '---\n# only a comment\n',
    ].join('');
    expect(inventoryOf(manifest, { name: 'unicorn', namespace: 'web' })).toEqual({
      entries: [
        { id: '_reader_rbac.authorization.k8s.io_ClusterRole', v: 'v1' },
        { id: 'other_unicorn_apps_Deployment', v: 'v1' },
        { id: 'web_unicorn__Service', v: 'v1' },
      ],
    });
  });

  it('withInventory replaces the inventory with the deployed revision (after a rollback too); no manifest leaves it as it was', () => {
    const before = { inventory: { entries: [{ id: 'web_gone_apps_Deployment', v: 'v1' }] } };
    const manifest = '---\napiVersion: v1\nkind: ConfigMap\nmetadata: { name: page }\n';
    expect(withInventory(before, manifest, { name: 'unicorn', namespace: 'web' }).inventory).toEqual({ entries: [{ id: 'web_page__ConfigMap', v: 'v1' }] });
    expect(withInventory(before, undefined, { name: 'unicorn', namespace: 'web' })).toBe(before);
  });
});
