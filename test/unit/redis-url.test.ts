import { describe, expect, it } from 'vitest';
import { ConfigError, readSharedConfig } from '../../src/core/config/env.js';
import { readBotConfig } from '../../src/bot/slack/config.js';
import { describeRedisTarget, parseRedisUrl } from '../../src/core/redis-url.js';
import { Cluster } from 'ioredis';
import { CLUSTER_MAX_REDIRECTIONS, CLUSTER_RETRY_MS, connectRedis, redactRedisUrl } from '../../src/core/redis.js';

describe('parseRedisUrl: one Redis', () => {
  it.each(['redis://127.0.0.1:6379', 'redis://:pw@redis.example:6380/2', 'rediss://user:pw@redis.example', 'redis://x'])('%s → single', (url) => {
    expect(parseRedisUrl(url)).toEqual({ kind: 'single', url });
  });
});

describe('parseRedisUrl: a Sentinel set', () => {
  it.each([
    {
      name: 'three sentinels, master, no db',
      url: 'redis+sentinel://10.0.0.1:26379,10.0.0.2:26380,s3.example:26381/mymaster',
      want: {
        kind: 'sentinel',
        sentinels: [
          { host: '10.0.0.1', port: 26379 },
          { host: '10.0.0.2', port: 26380 },
          { host: 's3.example', port: 26381 },
        ],
        masterName: 'mymaster',
        db: 0,
      },
    },
    {
      name: 'password, db, default port, IPv6',
      url: 'redis+sentinel://:p%40ss%2Cword@s1,[::1]:5000/helm-crew/3',
      want: {
        kind: 'sentinel',
        sentinels: [
          { host: 's1', port: 26379 },
          { host: '::1', port: 5000 },
        ],
        masterName: 'helm-crew',
        db: 3,
        password: 'p@ss,word',
      },
    },
    {
      name: 'ACL user and a sentinel password',
      url: 'redis+sentinel://app:secret@s1:1,s2:2/m?sentinelPassword=s%26p',
      want: {
        kind: 'sentinel',
        sentinels: [
          { host: 's1', port: 1 },
          { host: 's2', port: 2 },
        ],
        masterName: 'm',
        db: 0,
        username: 'app',
        password: 'secret',
        sentinelPassword: 's&p',
      },
    },
  ])('$name', ({ url, want }) => {
    expect(parseRedisUrl(url)).toEqual(want);
  });
});

describe('parseRedisUrl: a Redis Cluster', () => {
  it.each([
    {
      name: 'three seed nodes, default port',
      url: 'redis+cluster://10.0.0.1:7000,10.0.0.2:7001,redis-c.example',
      want: {
        kind: 'cluster',
        nodes: [
          { host: '10.0.0.1', port: 7000 },
          { host: '10.0.0.2', port: 7001 },
          { host: 'redis-c.example', port: 6379 },
        ],
        tls: false,
      },
    },
    {
      name: 'ACL user, percent-encoded password, IPv6, TLS',
      url: 'rediss+cluster://agent-edge:p%40ss%2Cword@[::1]:7000,n2:7001',
      want: {
        kind: 'cluster',
        nodes: [
          { host: '::1', port: 7000 },
          { host: 'n2', port: 7001 },
        ],
        tls: true,
        username: 'agent-edge',
        password: 'p@ss,word',
      },
    },
    { name: 'a password only', url: 'redis+cluster://:pw@n1:7000', want: { kind: 'cluster', nodes: [{ host: 'n1', port: 7000 }], tls: false, password: 'pw' } },
  ])('$name', ({ url, want }) => {
    expect(parseRedisUrl(url)).toEqual(want);
  });
});

describe('parseRedisUrl: bad forms say what is wrong, never quoting the password', () => {
  it.each([
    {
      url: 'localhost:6379',
      want: /must start with redis:\/\/, rediss:\/\/, redis\+sentinel:\/\/ or redis\+cluster:\/\/ \(one Redis, a Sentinel set: .*, or a Redis Cluster: redis\+cluster:\/\//,
    },
    { url: 'sentinel://s1:26379/m', want: /must start with .* not sentinel:\/\// },
    { url: 'redis+sentinel:///mymaster', want: /names no sentinel/ },
    { url: 'redis+sentinel://:topsecret@/mymaster', want: /names no sentinel/ },
    { url: 'redis+sentinel://s1:26379,s2:26379', want: /names no master: add \/<masterName> after the sentinels/ },
    { url: 'redis+sentinel://s1:26379/', want: /names no master/ },
    { url: 'redis+sentinel://s1:26379;s2:26379/m', want: /"s1:26379;s2:26379" is not a sentinel host\[:port\] \(sentinels are separated by commas\)/ },
    { url: 'redis+sentinel://s1:99999/m', want: /sentinel "s1:99999" has no valid port/ },
    { url: 'redis+sentinel://s1:/m', want: /sentinel "s1:" has no valid port/ },
    { url: 'redis+sentinel://s1,,s2/m', want: /"" is not a sentinel host/ },
    { url: 'redis+sentinel://s1/m/x', want: /the database after \/m\/ must be a number, not "x"/ },
    { url: 'redis+sentinel://s1/m/0/extra', want: /nothing more may follow/ },
    { url: 'redis+sentinel://:topsecret@s1/m?password=topsecret', want: /unknown parameter "password" \(only sentinelPassword is understood\)/ },
    { url: 'redis+sentinel://:top%ZZsecret@s1/m', want: /the password has a bad percent-encoding/ },
    { url: 'rediss+sentinel://s1/m', want: /TLS through Sentinel .* is not supported/ },
    { url: 'redis+cluster://', want: /names no cluster node: write redis\+cluster:\/\// },
    { url: 'redis+cluster://:topsecret@', want: /names no cluster node/ },
    { url: 'redis+cluster://:topsecret@n1:7000/0', want: /a Redis Cluster has only database 0; nothing may follow its nodes, not "\/0"/ },
    { url: 'redis+cluster://:topsecret@n1:7000?password=topsecret', want: /a Redis Cluster URL takes no parameters/ },
    { url: 'redis+cluster://n1:7000;n2:7001', want: /"n1:7000;n2:7001" is not a cluster node host\[:port\] \(cluster nodes are separated by commas\)/ },
    { url: 'redis+cluster://n1:0', want: /cluster node "n1:0" has no valid port/ },
    { url: 'redis+cluster://:top%ZZsecret@n1', want: /the password has a bad percent-encoding/ },
    { url: 'redis://:topsecret@host/abc', want: /the path must be a database number, not "\/abc"/ },
    { url: 'redis://:top secret@[bad', want: /not a valid URL/ },
  ])('$url', ({ url, want }) => {
    const parsed = parseRedisUrl(url);
    expect(parsed.kind).toBe('invalid');
    const message = parsed.kind === 'invalid' ? parsed.message : '';
    expect(message).toMatch(want);
    expect(message).not.toContain('topsecret');
  });
});

describe('REDIS_URL in every part', () => {
  it('the shared config and the bot take the Sentinel form and refuse a bad one with the same message', () => {
    const url = 'redis+sentinel://s1:26379,s2:26379,s3:26379/helmcrew';
    expect(readSharedConfig({ REDIS_URL: url }).redisUrl).toBe(url);
    const bot = { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1' };
    expect(readBotConfig({ ...bot, REDIS_URL: url }).redisUrl).toBe(url);
    expect(() => readSharedConfig({ REDIS_URL: 'redis+sentinel://s1:26379' })).toThrow(ConfigError);
    expect(() => readSharedConfig({ REDIS_URL: 'redis+sentinel://s1:26379' })).toThrow(/names no master/);
    expect(() => readBotConfig({ ...bot, REDIS_URL: 'redis+sentinel://s1:26379' })).toThrow(/names no master/);
  });

  it('on a Redis Cluster, every part refuses a keyspace without a hash tag at start, and takes one with', () => {
    const url = 'redis+cluster://n1:7000,n2:7001,n3:7002';
    const bot = { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1' };
    const refusal = /HELMCREW_QUEUE_PREFIX "helmcrew" has no hash tag: on a Redis Cluster .* set HELMCREW_QUEUE_PREFIX=\{helmcrew\} \(braces included/;
    expect(() => readSharedConfig({ REDIS_URL: url })).toThrow(ConfigError);
    expect(() => readSharedConfig({ REDIS_URL: url })).toThrow(refusal);
    expect(() => readBotConfig({ ...bot, REDIS_URL: url })).toThrow(refusal);
    expect(() => readSharedConfig({ REDIS_URL: url, HELMCREW_QUEUE_PREFIX: 'a{}b' })).toThrow(/"a\{\}b" has no hash tag.*set HELMCREW_QUEUE_PREFIX=a hash tag/);
    expect(readSharedConfig({ REDIS_URL: url, HELMCREW_QUEUE_PREFIX: '{helmcrew}' }).queuePrefix).toBe('{helmcrew}');
    expect(readBotConfig({ ...bot, REDIS_URL: url, HELMCREW_QUEUE_PREFIX: 'hc-{x}' }).keyPrefix).toBe('hc-{x}');
    // A named cluster's keyspace is its own hash tag, whatever the prefix.
    expect(readSharedConfig({ REDIS_URL: url, HELMCREW_CLUSTER_NAME: 'edge' }).queuePrefix).toBe('{helmcrew:edge}');
    // One Redis or Sentinel: no hash tag needed, as before.
    expect(readSharedConfig({ REDIS_URL: 'redis://h:6379' }).queuePrefix).toBe('helmcrew');
  });

  it('logs name the target without a password', () => {
    expect(redactRedisUrl('redis+sentinel://:topsecret@s1:1,[::1]:2/m/4?sentinelPassword=alsosecret')).toBe('sentinel master "m" db 4 via s1:1,[::1]:2');
    expect(redactRedisUrl('redis://:topsecret@h:6379/1')).toBe('redis://:***@h:6379/1');
    expect(redactRedisUrl('redis+cluster://u:topsecret@n1:7000,[::1]:7001')).toBe('redis cluster via n1:7000,[::1]:7001');
    expect(redactRedisUrl('rediss+cluster://:topsecret@n1:7000')).toBe('redis cluster (TLS) via n1:7000');
    expect(redactRedisUrl('nonsense')).toBe('(unparseable REDIS_URL)');
    expect(describeRedisTarget({ kind: 'single', url: 'redis://h' })).toBe('redis://h');
  });
});

describe('connectRedis on a Redis Cluster URL', () => {
  it('makes an ioredis Cluster of the seed nodes, with BullMQ’s maxRetriesPerRequest: null in redisOptions and the credentials', async () => {
    // Nothing listens on port 1: the client is made and closed again before it reaches anything.
    const connection = connectRedis('rediss+cluster://agent:pw@127.0.0.1:1,127.0.0.1:2');
    connection.on('error', () => undefined);
    try {
      expect(connection).toBeInstanceOf(Cluster);
      const cluster = connection as Cluster;
      expect(cluster.options.redisOptions).toMatchObject({ maxRetriesPerRequest: null, username: 'agent', password: 'pw', tls: {} });
      expect(cluster.options.maxRedirections).toBe(CLUSTER_MAX_REDIRECTIONS);
      expect(cluster.options.retryDelayOnFailover).toBe(CLUSTER_RETRY_MS);
      // The bot's own connection gives a command up instead.
      const bot = connectRedis('redis+cluster://127.0.0.1:1', { maxRetriesPerRequest: 3 }) as Cluster;
      bot.on('error', () => undefined);
      expect(bot.options.redisOptions?.maxRetriesPerRequest).toBe(3);
      bot.disconnect();
    } finally {
      connection.disconnect();
    }
  });
});
