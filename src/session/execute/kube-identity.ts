import { AuthenticationV1Api, type KubeConfig } from '@kubernetes/client-node';

/**
 * Who the API server says the kubeconfig user is (SelfSubjectReview), for audit records: the
 * kubeconfig's own user name is only a local label. Falls back to that label when the server
 * does not answer the review.
 */
export async function kubeActorId(kubeConfig: KubeConfig): Promise<string> {
  try {
    const review = await kubeConfig
      .makeApiClient(AuthenticationV1Api)
      .createSelfSubjectReview({ body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } });
    const username = review.status?.userInfo?.username;
    if (username) return `kube:${username}`;
  } catch {
    // an old API server or a forbidden review: the label is the best there is
  }
  return `kube:${kubeConfig.getCurrentUser()?.name ?? 'unknown'}`;
}
