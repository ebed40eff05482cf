import type { ReleaseNotification } from './contract.js';
import { QUEUE_NAMES } from '../core/fleet/cluster-keys.js';

/** Notifications as published by the controller: one job per happening, id = notification id. */
export const NOTIFY_QUEUE = QUEUE_NAMES.notify;
/** Drain jobs: one per (team, channel, release) mailbox, deduplicated by mailbox. */
export const DELIVERY_QUEUE = QUEUE_NAMES.delivery;

export type NotifyJob = ReleaseNotification;

export interface DeliveryJob {
  /** The mailbox to drain: see src/notify/delivery/mailbox.ts. */
  mailbox: string;
  team: string;
  channelKey: string;
  release: string;
  /** Set while the job waits for a rate-limit slot it reserved (epoch ms). */
  slotAt?: number;
  /** The bucket that slot is in (undefined: the channel's). */
  slotKey?: string;
  /** When the server began pacing this job with Retry-After (epoch ms); those waits use no attempt. */
  pacedSince?: number;
}

/** BullMQ job ids cannot contain ':'. */
export function isValidJobId(id: string): boolean {
  return id.length > 0 && !id.includes(':');
}
