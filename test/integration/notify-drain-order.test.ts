import { afterAll, describe, expect, it } from 'vitest';
import type { Team } from '../../src/api/team.js';
import { createLogger } from '../../src/core/log.js';
import { connectRedis } from '../../src/core/redis.js';
import { uniqueName } from '../../src/dev/harness/index.js';
import { channelKey } from '../../src/notify/channels.js';
import type { ChannelRef, NotificationProvider, ReleaseNotification } from '../../src/notify/contract.js';
import { drainMailbox, type DrainDeps } from '../../src/notify/delivery/drain-mailbox.js';
import { mailboxId, Mailboxes } from '../../src/notify/delivery/mailbox.js';
import { ChannelRateLimiter } from '../../src/notify/delivery/rate-limiter.js';
import { UnroutedMarks } from '../../src/notify/delivery/unrouted.js';
import { ProviderRegistry } from '../../src/notify/providers/registry.js';
import type { TeamDirectory } from '../../src/notify/team-directory.js';
import type { TeamStatusWriter } from '../../src/notify/team-status-writer.js';
import { notificationFor } from '../support/notify-fixtures.js';
import { testEnv } from '../support/fixtures.js';

/**
 * The notify-replicas flake (op1 and op2 of one release delivered swapped, once in four loaded
 * runs): a drainer read its mailbox, then another replica filed the earlier notification there
 * and unmarked it, then the drainer checked the marks, found none, and sent the later one first.
 * Here that interleaving is made to happen every time, on the real Redis.
 */
describe('draining a mailbox while another replica routes', () => {
  const { env } = testEnv();
  const redis = connectRedis(env.redisUrl);
  afterAll(() => redis.disconnect());

  it('an earlier notification filed (and unmarked) between reading the mailbox and checking the marks is delivered first', async () => {
    const prefix = uniqueName('hc-drain-order');
    const mailboxes = new Mailboxes(redis, prefix);
    const marks = new UnroutedMarks(redis, prefix);
    const release = { namespace: 'web', name: 'unicorn' };
    const earlier = notificationFor(release, 'UpgradeSucceeded', 'op1');
    const later = notificationFor(release, 'UpgradeSucceeded', 'op2');
    const channel: ChannelRef = { kind: 'slack', channel: 'C0DRAIN' };
    const key = channelKey(channel);
    const mailbox = mailboxId('team', key, `${release.namespace}/${release.name}`);

    // Both published (marked); the later one routed first by one replica.
    await marks.mark(earlier);
    await marks.mark(later);
    await mailboxes.enqueue(mailbox, later);
    await marks.unmark(later);
    // The other replica files the earlier one just after the drainer has read the mailbox: the
    // drainer's first look at the marks is where that moment falls.
    let routedMeanwhile = false;
    const unrouted = {
      earlierUnrouted: async (n: ReleaseNotification) => {
        if (!routedMeanwhile) {
          routedMeanwhile = true;
          await mailboxes.enqueue(mailbox, earlier);
          await marks.unmark(earlier);
        }
        return marks.earlierUnrouted(n);
      },
    } as unknown as UnroutedMarks;

    const delivered: string[] = [];
    const provider: NotificationProvider = { kind: 'slack', deliver: async (n) => void delivered.push(n.operationId) };
    const team = { metadata: { name: 'team' }, spec: { channels: [{ slack: 'C0DRAIN' }] } } as unknown as Team;
    const deps: DrainDeps = {
      mailboxes,
      unrouted,
      limiter: new ChannelRateLimiter(redis, prefix, 100, 100),
      providers: new ProviderRegistry().register(provider),
      directory: { get: (name: string) => (name === 'team' ? team : undefined) } as unknown as TeamDirectory,
      status: { record: async () => undefined, warn: async () => undefined } as unknown as TeamStatusWriter,
      log: createLogger('notify', 'warn'),
      coalesceWindowMs: 600_000,
      lockMs: 30_000,
      now: () => new Date(),
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    };

    expect(await drainMailbox(deps, { mailbox, team: 'team', channelKey: key, release: `${release.namespace}/${release.name}` }, 'token')).toBe(2);
    expect(routedMeanwhile).toBe(true);
    expect(delivered).toEqual(['op1', 'op2']);
  });
});
