import type { Team, TeamStatus } from '../../api/team.js';
import { API_GROUP, API_VERSION, TEAM_PLURAL } from '../../api/vocabulary.js';
import { mergePatch, type KubeClients } from './kube-clients.js';
import { isNotFound } from './errors.js';

const COORDINATES = { group: API_GROUP, version: API_VERSION, plural: TEAM_PLURAL };

/** Reads Teams and writes their status; the only code that knows their REST coordinates. Teams are cluster-scoped. */
export class TeamApi {
  constructor(private readonly kube: KubeClients) {}

  /** Every Team, or those matching a label selector (`team-set=payments`). */
  async list(labelSelector?: string): Promise<{ items: Team[]; metadata?: { resourceVersion?: string } }> {
    return (await this.kube.custom.listClusterCustomObject({ ...COORDINATES, ...(labelSelector ? { labelSelector } : {}) })) as {
      items: Team[];
      metadata?: { resourceVersion?: string };
    };
  }

  async get(name: string): Promise<Team | undefined> {
    try {
      return (await this.kube.custom.getClusterCustomObject({ ...COORDINATES, name })) as Team;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /**
   * Merge-patches status (lists are replaced whole, so callers send the full channels list).
   * With resourceVersion the patch fails with 409 when the Team changed since it was read.
   */
  async patchStatus(name: string, status: TeamStatus, resourceVersion?: string, fieldManager = 'helmcrew-notify'): Promise<void> {
    const body = resourceVersion ? { metadata: { resourceVersion }, status } : { status };
    await this.kube.custom.patchClusterCustomObjectStatus({ ...COORDINATES, name, body, fieldManager }, mergePatch);
  }
}
