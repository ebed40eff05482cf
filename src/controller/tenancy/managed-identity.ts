import { FIELD_MANAGER } from '../../api/vocabulary.js';
import type { KubeRest } from '../../core/kube/rest-client.js';
import { seg } from '../../core/kube/rest-client.js';
import { MANAGED_SERVICE_ACCOUNT } from '../../core/release/tenancy-policy.js';

/** The ClusterRole the managed ServiceAccount is bound to in its namespace: Kubernetes' own namespace admin. */
export const MANAGED_IDENTITY_ROLE = 'admin';

const LABELS = { 'app.kubernetes.io/managed-by': 'helmcrew', 'helmcrew.dev/identity': 'release' };

/** Pure: the ServiceAccount and RoleBinding a namespace's managed identity is made of. */
export function managedIdentityObjects(namespace: string) {
  const metadata = { name: MANAGED_SERVICE_ACCOUNT, namespace, labels: LABELS };
  return {
    serviceAccount: { apiVersion: 'v1', kind: 'ServiceAccount', metadata },
    roleBinding: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata,
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: MANAGED_IDENTITY_ROLE },
      subjects: [{ kind: 'ServiceAccount', name: MANAGED_SERVICE_ACCOUNT, namespace }],
    },
  };
}

/** How long a namespace's identity is taken as in place before it is applied again (someone may delete it). */
const FRESH_MS = 5 * 60_000;

/**
 * Keeps helmcrew's own ServiceAccount (`helmcrew-release`, admin of its namespace only) in each
 * namespace a HelmRelease acts as it in: applied (server-side apply, idempotent) before the first
 * pass there and again every few minutes, with the controller's own rights (create/patch of
 * ServiceAccounts and RoleBindings, `bind` on the admin ClusterRole). A failure is the API
 * server's error, for the caller to report.
 */
export class ManagedIdentities {
  private readonly appliedAt = new Map<string, number>();
  private readonly inFlight = new Map<string, Promise<void>>();

  constructor(
    private readonly rest: KubeRest,
    private readonly now: () => number = Date.now,
  ) {}

  async ensure(namespace: string): Promise<void> {
    const at = this.appliedAt.get(namespace);
    if (at !== undefined && this.now() - at < FRESH_MS) return;
    let running = this.inFlight.get(namespace);
    if (!running) {
      running = this.apply(namespace).finally(() => this.inFlight.delete(namespace));
      this.inFlight.set(namespace, running);
    }
    await running;
  }

  private async apply(namespace: string): Promise<void> {
    const { serviceAccount, roleBinding } = managedIdentityObjects(namespace);
    const ns = seg(namespace);
    const name = seg(MANAGED_SERVICE_ACCOUNT);
    const query = { fieldManager: FIELD_MANAGER, force: true };
    const contentType = 'application/apply-patch+yaml';
    await this.rest.request({ method: 'PATCH', path: `/api/v1/namespaces/${ns}/serviceaccounts/${name}`, query, contentType, body: serviceAccount });
    await this.rest.request({
      method: 'PATCH',
      path: `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings/${name}`,
      query,
      contentType,
      body: roleBinding,
    });
    // One entry per namespace with releases; a bound keeps a churn of namespaces from growing it.
    if (this.appliedAt.size >= 10_000) this.appliedAt.clear();
    this.appliedAt.set(namespace, this.now());
  }
}
