import { KubeConfig } from '@kubernetes/client-node';
import { makeKubeClients, type KubeClients } from './client.js';

/**
 * API clients that act as another user (the ServiceAccount a HelmRelease runs as), so what
 * helmcrew reads for a HelmRelease — valuesFrom, its Helm release records — is limited to what
 * that identity may read, exactly as helm's --kube-as-user limits helm.
 *
 * client-node 2.x sends `Impersonate-User` when the kubeconfig user has `as` (impersonateUser):
 * each identity gets a copy of the controller's KubeConfig with that set. The copies borrow the
 * controller's pooled connections (the header is per request, the TLS connection is not).
 */
export class IdentityClients {
  private readonly byUser = new Map<string, KubeClients>();

  constructor(private readonly base: KubeClients) {}

  /** The controller's own clients when `user` is undefined. */
  forUser(user: string | undefined): KubeClients {
    if (user === undefined) return this.base;
    let clients = this.byUser.get(user);
    if (!clients) {
      clients = makeKubeClients(impersonatingConfig(this.base.config, user));
      // One entry per ServiceAccount in use; a bound keeps a churn of namespaces from growing it.
      if (this.byUser.size >= 1000) this.byUser.clear();
      this.byUser.set(user, clients);
    }
    return clients;
  }
}

/** A copy of `base` whose current user is impersonated as `user`; it shares base's connections. */
export function impersonatingConfig(base: KubeConfig, user: string): KubeConfig {
  const current = base.getCurrentUser();
  if (!current) throw new Error('the kubeconfig has no current user to impersonate from');
  const copy = new KubeConfig();
  copy.loadFromOptions({
    clusters: base.clusters,
    contexts: base.contexts,
    currentContext: base.currentContext,
    users: base.users.map((u) => (u.name === current.name ? { ...u, impersonateUser: user } : u)),
  });
  const shared = base as unknown as { createDispatcher?: (...args: unknown[]) => unknown };
  if (typeof shared.createDispatcher === 'function') {
    (copy as unknown as { createDispatcher: (...args: unknown[]) => unknown }).createDispatcher = (...args) => shared.createDispatcher!(...args);
  }
  return copy;
}
