import type { KubeClients } from './kube-clients.js';

/**
 * API clients that act as another user (the ServiceAccount a HelmRelease runs as), so what
 * helmcrew reads for a HelmRelease — valuesFrom, its Helm release records — is limited to what
 * that identity may read, exactly as helm's --kube-as-user limits helm.
 *
 * Each identity's clients send `Impersonate-User` and share the controller's pooled
 * connections (the header is per request, the TLS connection is not).
 */
export class IdentityClients {
  private readonly byUser = new Map<string, KubeClients>();

  constructor(private readonly base: KubeClients) {}

  /** The controller's own clients when `user` is undefined. */
  forUser(user: string | undefined): KubeClients {
    if (user === undefined) return this.base;
    let clients = this.byUser.get(user);
    if (!clients) {
      clients = this.base.impersonate(user);
      // One entry per ServiceAccount in use; a bound keeps a churn of namespaces from growing it.
      if (this.byUser.size >= 1000) this.byUser.clear();
      this.byUser.set(user, clients);
    }
    return clients;
  }
}
