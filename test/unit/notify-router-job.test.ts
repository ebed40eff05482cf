import { Writable } from 'node:stream';
import type { JobsOptions } from 'bullmq';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { Subscription, Team, TeamChannel } from '../../src/api/team.js';
import { severityOf } from '../../src/api/vocabulary.js';
import { channelKey } from '../../src/notify/channels.js';
import type { ReleaseNotification } from '../../src/notify/contract.js';
import { mailboxId } from '../../src/notify/delivery/mailbox.js';
import { DELIVERY_ATTEMPTS } from '../../src/notify/delivery/retry-policy.js';
import type { DeliveryJob } from '../../src/notify/queues.js';
import { drainJobOptions, runRouterJob, type RouterPorts } from '../../src/notify/routing/router-job.js';

const notification: ReleaseNotification = {
  id: 'n1',
  operationId: 'uid:3:upgrade',
  event: 'UpgradeFailed',
  severity: severityOf('UpgradeFailed'),
  release: { namespace: 'web', name: 'unicorn', releaseName: 'unicorn', targetNamespace: 'web', chart: 'unicorn', labels: {} },
  cause: 'spec change',
  message: 'Upgrade failed',
  at: '2026-11-23T06:00:00.000Z',
};

const team = (name: string, subscriptions: Subscription[], channels: TeamChannel[] = [{ slack: `#${name}` }]): Team => ({
  apiVersion: 'helmcrew.dev/v1alpha1',
  kind: 'Team',
  metadata: { name },
  spec: { channels, subscriptions },
});

type Call =
  { op: 'enqueue'; mailbox: string; id: string } | { op: 'drain'; name: string; data: DeliveryJob; options: JobsOptions } | { op: 'unmark'; id: string };

/** In-memory ports recording every call in order; the log into memory. */
function fakePorts(teams: Team[], ready = true) {
  const calls: Call[] = [];
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const ports: RouterPorts = {
    directory: { ready, teams: () => teams },
    mailboxes: { enqueue: async (mailbox, n) => void calls.push({ op: 'enqueue', mailbox, id: n.id }) },
    drains: { add: async (name, data, options) => void calls.push({ op: 'drain', name, data, options }) },
    unrouted: { unmark: async (n) => void calls.push({ op: 'unmark', id: n.id }) },
    log: pino({ level: 'debug' }, stream),
  };
  return { ports, calls, lines };
}

const slackKey = (channel: string) => channelKey({ kind: 'slack', channel });

describe('runRouterJob', () => {
  it("files the notification in each subscribed channel's mailbox before asking for that mailbox to be drained, then unmarks it", async () => {
    const { ports, calls, lines } = fakePorts([
      team('web', [{ namespaces: ['web'] }], [{ slack: '#web' }, { slack: '#web-oncall' }]),
      team('data', [{ namespaces: ['data'] }]),
      team('sre', [{ severity: 'error' }]),
    ]);

    const routed = await runRouterJob(ports, notification);

    expect(routed).toBe(3);
    const box = (t: string, c: string) => mailboxId(t, slackKey(c), 'web/unicorn');
    expect(calls.map((c) => (c.op === 'drain' ? `drain ${c.data.mailbox}` : c.op === 'enqueue' ? `enqueue ${c.mailbox}` : `unmark ${c.id}`))).toEqual([
      `enqueue ${box('web', '#web')}`,
      `drain ${box('web', '#web')}`,
      `enqueue ${box('web', '#web-oncall')}`,
      `drain ${box('web', '#web-oncall')}`,
      `enqueue ${box('sre', '#sre')}`,
      `drain ${box('sre', '#sre')}`,
      'unmark n1',
    ]);
    expect(calls[1]).toEqual({
      op: 'drain',
      name: 'drain',
      data: { mailbox: box('web', '#web'), team: 'web', channelKey: slackKey('#web'), release: 'web/unicorn' },
      options: drainJobOptions(box('web', '#web')),
    });
    expect(lines.at(-1)).toMatchObject({
      msg: 'routed',
      release: 'web/unicorn',
      event: 'UpgradeFailed',
      notification: 'n1',
      teams: ['web', 'sre'],
      channels: 3,
    });
  });

  it('with no Team subscribed: files nothing, still unmarks (later notifications must not wait for it), says so', async () => {
    const { ports, calls, lines } = fakePorts([team('data', [{ namespaces: ['data'] }])]);

    expect(await runRouterJob(ports, notification)).toBe(0);

    expect(calls).toEqual([{ op: 'unmark', id: 'n1' }]);
    expect(lines.at(-1)).toMatchObject({ msg: 'no Team subscribed', channels: 0, teams: [] });
  });

  it('before the Teams are listed: fails (the job retries) and touches nothing, so nothing is dropped or unmarked', async () => {
    const { ports, calls } = fakePorts([team('web', [{}])], false);

    await expect(runRouterJob(ports, notification)).rejects.toThrow('Teams not listed yet');

    expect(calls).toEqual([]);
  });

  it('does not unmark when filing fails part-way (the retry routes it again)', async () => {
    const { ports, calls } = fakePorts([team('web', [{}], [{ slack: '#a' }, { slack: '#b' }])]);
    ports.drains = {
      add: async (_name, data) => {
        if (data.channelKey === slackKey('#b')) throw new Error('redis down');
        calls.push({ op: 'drain', name: 'drain', data, options: {} });
      },
    };

    await expect(runRouterJob(ports, notification)).rejects.toThrow('redis down');

    expect(calls.map((c) => c.op)).toEqual(['enqueue', 'drain', 'enqueue']);
  });
});

describe('drainJobOptions', () => {
  it('one drain job per mailbox (the last add kept while one runs), the delivery attempts and backoff, done jobs removed', () => {
    expect(drainJobOptions('web|slack.#web|web/unicorn')).toEqual({
      deduplication: { id: 'web|slack.#web|web/unicorn', keepLastIfActive: true },
      attempts: DELIVERY_ATTEMPTS,
      backoff: { type: 'delivery' },
      removeOnComplete: true,
      removeOnFail: { age: 7 * 24 * 3600, count: 1000 },
    });
  });
});

describe('runRouterJob in a cluster', () => {
  it('stamps the cluster whose keyspace the job came from, over whatever the job says, and routes by it', async () => {
    const { ports, lines } = fakePorts([team('staging-only', [{ clusters: ['staging-*'] }]), team('everyone', [{}])]);
    const filed: ReleaseNotification[] = [];
    ports.mailboxes = { enqueue: async (_mailbox, n) => void filed.push(n) };
    ports.cluster = 'prod-eu';

    expect(await runRouterJob(ports, { ...notification, cluster: 'staging-1' })).toBe(1);
    expect(filed.map((n) => n.cluster)).toEqual(['prod-eu']);
    expect(lines.find((l) => l.msg === 'routed')).toMatchObject({ cluster: 'prod-eu', teams: ['everyone'] });

    ports.cluster = 'staging-1';
    expect(await runRouterJob(ports, notification)).toBe(2);
  });
});
