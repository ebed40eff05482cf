import { randomBytes } from 'node:crypto';
import type { HelmRelease } from '../../api/helmrelease.js';
import { MAX_COMMAND_LIFETIME_MS, type FleetCommand, type Refusal } from './signed-command.js';

/** What the agent answers, as the command job's return value (in the cluster's own keyspace, which only its agents and the bot may write). */
export type CommandOutcome =
  | {
      ok: true;
      message: string;
      generation?: number;
      /** The release as written (core/fleet/fleet-query.ts releaseForFleet), for who-asked records. */ release?: HelmRelease;
    }
  | { ok: false; message: string; refused?: Refusal };

/** A command as the bot makes it: a fresh nonce and an expiry `lifetimeMs` ahead (at most the maximum). */
export function newCommand(fields: Omit<FleetCommand, 'nonce' | 'expiresAt'>, now: number, lifetimeMs = 2 * 60_000): FleetCommand {
  return {
    ...fields,
    nonce: randomBytes(16).toString('hex'),
    expiresAt: new Date(now + Math.min(lifetimeMs, MAX_COMMAND_LIFETIME_MS)).toISOString(),
  };
}
