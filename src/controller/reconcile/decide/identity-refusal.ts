import type { ReleaseIdentity } from '../../../core/release/release-identity.js';
import { describeIdentity } from '../../../core/release/release-identity.js';
import type { ForbiddenRequest } from '../../helm/helm-error.js';

/**
 * Pure: what a HelmRelease's status says when the API server refused helm a request as the
 * release's identity — who was refused what, and the one change that would allow it — instead
 * of helm's RBAC stack trace.
 */
export function identityRefusalMessage(what: string, identity: ReleaseIdentity, refused: ForbiddenRequest): string {
  const where = refused.namespace ? `in namespace ${refused.namespace}` : 'at the cluster scope';
  const said = `${what} was refused: ${describeIdentity(identity)} may not ${refused.verb} ${refused.resource} ${where}`;
  switch (identity.kind) {
    case 'managed':
      return `${said}. A chart with cluster-wide objects or objects in other namespaces needs an identity granted them: spec.serviceAccountName, or this namespace in HELMCREW_CLUSTER_SCOPE_NAMESPACES (the operator's)`;
    case 'named':
    case 'operator-default':
      return `${said}. Grant that ServiceAccount what the chart needs, or name another one in spec.serviceAccountName`;
    case 'controller':
      return `${said}. The controller's own rights do not cover it (chart value rbac.clusterAdmin)`;
    case 'kubeconfig':
      return `${said}. Grant the kubeconfig's user what the chart needs in that cluster, or name a ServiceAccount there in spec.serviceAccountName`;
  }
}
