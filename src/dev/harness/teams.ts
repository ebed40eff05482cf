import type { TeamSpec } from '../../api/team.js';
import { API_GROUP, API_VERSION, TEAM_KIND, TEAM_PLURAL } from '../../api/vocabulary.js';
import type { KubeClients } from '../../core/kube/client.js';

/** Creates a Team (cluster-scoped) for a test or a benchmark; partial specs are the API server's to refuse. */
export async function createTeam(kube: KubeClients, name: string, spec: Partial<TeamSpec> & Pick<TeamSpec, 'members'>): Promise<void> {
  await kube.custom.createClusterCustomObject({
    group: API_GROUP,
    version: API_VERSION,
    plural: TEAM_PLURAL,
    body: { apiVersion: `${API_GROUP}/${API_VERSION}`, kind: TEAM_KIND, metadata: { name }, spec },
  });
}

/** Deletes a Team; one already gone is fine (clean-up after a failed set-up). */
export async function deleteTeam(kube: KubeClients, name: string): Promise<void> {
  await kube.custom.deleteClusterCustomObject({ group: API_GROUP, version: API_VERSION, plural: TEAM_PLURAL, name }).catch(() => undefined);
}
