import type { Freeze, FreezeStatus } from '../../api/freeze.js';
import { API_GROUP, API_VERSION, FREEZE_PLURAL } from '../../api/vocabulary.js';
import { mergePatch, type KubeClients } from './kube-clients.js';
import { isNotFound } from './errors.js';

const COORDINATES = { group: API_GROUP, version: API_VERSION, plural: FREEZE_PLURAL };

/**
 * Reads, creates and deletes Freezes; the only code that knows their REST coordinates. The bot and
 * the terminal write them; the controller watches them (controller/watch/freeze-watch.ts) and records
 * in their status which releases they held.
 */
export class FreezeApi {
  constructor(private readonly kube: KubeClients) {}

  async list(): Promise<{ items: Freeze[]; metadata?: { resourceVersion?: string } }> {
    return (await this.kube.custom.listClusterCustomObject(COORDINATES)) as { items: Freeze[]; metadata?: { resourceVersion?: string } };
  }

  async get(name: string): Promise<Freeze | undefined> {
    try {
      return (await this.kube.custom.getClusterCustomObject({ ...COORDINATES, name })) as Freeze;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async create(freeze: Freeze, fieldManager: string): Promise<Freeze> {
    return (await this.kube.custom.createClusterCustomObject({ ...COORDINATES, body: freeze, fieldManager })) as Freeze;
  }

  /** Merge-patches annotations (the bot's bookkeeping on a Freeze it posted); false when the Freeze is gone. */
  async annotate(name: string, annotations: Record<string, string>, fieldManager: string): Promise<boolean> {
    try {
      await this.kube.custom.patchClusterCustomObject({ ...COORDINATES, name, body: { metadata: { annotations } }, fieldManager }, mergePatch);
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  /**
   * Merge-patches the status (the controller's record of what the freeze held), conditional on
   * `resourceVersion`: a 409 means someone wrote since it was read.
   */
  async patchStatus(name: string, status: FreezeStatus, resourceVersion: string, fieldManager: string): Promise<Freeze> {
    return (await this.kube.custom.patchClusterCustomObjectStatus(
      { ...COORDINATES, name, body: { metadata: { resourceVersion }, status }, fieldManager },
      mergePatch,
    )) as Freeze;
  }

  /** Lifts a freeze. False when it was already gone. */
  async delete(name: string): Promise<boolean> {
    try {
      await this.kube.custom.deleteClusterCustomObject({ ...COORDINATES, name });
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }
}
