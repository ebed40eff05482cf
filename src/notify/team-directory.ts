import type { Team } from '../api/team.js';
import type { TeamApi } from '../core/kube/team-api.js';
import type { Logger } from '../core/log.js';

/**
 * The Teams, listed from the API server and kept in memory, listed again every `refreshMs`.
 * Teams change rarely and are few; a list is simpler and harder to break than a watch. A failed
 * list keeps the last good one (logged).
 */
export class TeamDirectory {
  private current: Team[] = [];
  private loaded = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly api: TeamApi,
    private readonly log: Logger,
    private readonly refreshMs = 5000,
    /** Serve only the Teams with these labels (several notify deployments, one cluster). */
    private readonly labelSelector?: string,
  ) {}

  get ready(): boolean {
    return this.loaded;
  }

  teams(): readonly Team[] {
    return this.current;
  }

  get(name: string): Team | undefined {
    return this.current.find((t) => t.metadata.name === name);
  }

  async refresh(): Promise<void> {
    try {
      this.current = (await this.api.list(this.labelSelector)).items;
      this.loaded = true;
    } catch (error) {
      this.log.warn({ error: error instanceof Error ? error.message : String(error) }, 'could not list Teams; keeping the last list');
    }
  }

  async start(): Promise<void> {
    await this.refresh();
    const tick = () => {
      this.timer = setTimeout(() => void this.refresh().finally(() => this.timer && tick()), this.refreshMs);
    };
    tick();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
