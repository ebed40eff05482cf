import { TeamApi } from '../core/kube/team-api.js';
import { isConflict, isNotFound } from '../core/kube/errors.js';
import type { Logger } from '../core/log.js';
import { channelLabel, channelRefOf } from './channels.js';
import type { Team } from '../api/team.js';
import { nextTeamStatus, withChannelWarning, type DeliveryOutcome } from './team-status.js';

/**
 * Records delivery outcomes on the Team's status. Failures are written at once; successes at most
 * every `successEveryMs` per channel (and at once after an error), so a busy channel does not
 * become a stream of API writes. Writes for one Team are serialized in this process; across
 * replicas, a conflicting write (409) is re-read and retried. Never throws: status is a report.
 */
export class TeamStatusWriter {
  private readonly lastWrite = new Map<string, { at: number; ok: boolean }>();
  private readonly chains = new Map<string, Promise<void>>();
  /** The template warning last written per team|channel: a broken template is said once, not per message. */
  private readonly warnings = new Map<string, string | undefined>();

  constructor(
    private readonly teams: TeamApi,
    private readonly log: Logger,
    private readonly successEveryMs = 30_000,
  ) {}

  record(team: string, outcome: DeliveryOutcome): Promise<void> {
    const key = `${team}|${outcome.channel}`;
    const previous = this.lastWrite.get(key);
    if (outcome.ok && previous?.ok && outcome.at.getTime() - previous.at < this.successEveryMs) return Promise.resolve();
    this.lastWrite.set(key, { at: outcome.at.getTime(), ok: outcome.ok });
    const chained = (this.chains.get(team) ?? Promise.resolve()).then(() => this.write(team, outcome));
    this.chains.set(team, chained);
    return chained;
  }

  /** Sets (or clears) a channel's template warning, writing only when it changes. */
  warn(team: string, channel: string, warning: string | undefined): Promise<void> {
    const key = `${team}|${channel}`;
    if (this.warnings.has(key) ? this.warnings.get(key) === warning : warning === undefined) return Promise.resolve();
    this.warnings.set(key, warning);
    const write = () =>
      this.patch(
        team,
        (status) => withChannelWarning(status, channel, warning),
        () => this.warnings.delete(key),
      );
    const chained = (this.chains.get(team) ?? Promise.resolve()).then(write);
    this.chains.set(team, chained);
    return chained;
  }

  private async patch(team: string, next: (status: Team['status']) => NonNullable<Team['status']>, onFailure: () => void): Promise<void> {
    for (let attempt = 1; attempt <= 4; attempt++) {
      try {
        const current = await this.teams.get(team);
        if (!current) return;
        await this.teams.patchStatus(team, next(current.status), current.metadata.resourceVersion);
        return;
      } catch (error) {
        if (isNotFound(error)) return;
        if (isConflict(error) && attempt < 4) continue;
        onFailure();
        this.log.warn({ team, error: error instanceof Error ? error.message : String(error) }, 'could not write Team status');
        return;
      }
    }
  }

  private async write(team: string, outcome: DeliveryOutcome): Promise<void> {
    for (let attempt = 1; attempt <= 4; attempt++) {
      try {
        const current = await this.teams.get(team);
        if (!current) return;
        const inSpec = (current.spec.channels ?? []).flatMap((c) => {
          const ref = channelRefOf(c);
          return ref ? [channelLabel(ref)] : [];
        });
        const status = nextTeamStatus(current.status, outcome, inSpec, current.metadata.generation);
        await this.teams.patchStatus(team, status, current.metadata.resourceVersion);
        return;
      } catch (error) {
        if (isNotFound(error)) return;
        if (isConflict(error) && attempt < 4) continue;
        this.lastWrite.delete(`${team}|${outcome.channel}`);
        this.log.warn({ team, channel: outcome.channel, error: error instanceof Error ? error.message : String(error) }, 'could not write Team status');
        return;
      }
    }
  }
}
