// The API server's RBAC authorizer reads Roles and RoleBindings from an informer cache, so a
// binding just created may not authorize the next request yet (a 403 seen in CI). Tests that act
// as a user straight after granting them rights wait here until the server agrees.
import { AuthorizationV1Api, type KubeConfig } from '@kubernetes/client-node';
import { expect } from 'vitest';
import { eventually } from './eventually.js';

export interface Access {
  user: string;
  namespace: string;
  group: string;
  resource: string;
  verb: string;
}

/** Waits until the API server says `user` may `verb` the resource (a SubjectAccessReview, as admin). */
export async function untilAuthorized(admin: KubeConfig, access: Access): Promise<void> {
  const authorization = admin.makeApiClient(AuthorizationV1Api);
  const { user, namespace, group, resource, verb } = access;
  await eventually(
    async () => {
      const review = await authorization.createSubjectAccessReview({
        body: { spec: { user, resourceAttributes: { namespace, group, resource, verb } } },
      });
      expect(review.status?.allowed, `${user} may ${verb} ${resource} in ${namespace}`).toBe(true);
    },
    { timeoutMs: 30_000, intervalMs: 100 },
  );
}
