import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/core/config/env.js';
import { readBotConfig } from '../../../src/bot/slack/config.js';

const base = { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's', REDIS_URL: 'redis://127.0.0.1:6379' };

describe('readBotConfig: one line naming the variable', () => {
  it.each([
    { name: 'no bot token', env: { ...base, SLACK_BOT_TOKEN: undefined }, want: /^SLACK_BOT_TOKEN is not set/ },
    { name: 'a user token', env: { ...base, SLACK_BOT_TOKEN: 'xoxp-1' }, want: /^SLACK_BOT_TOKEN must be a bot token/ },
    { name: 'HTTP mode without a signing secret', env: { ...base, SLACK_SIGNING_SECRET: undefined }, want: /^SLACK_SIGNING_SECRET is not set/ },
    { name: 'a bad app token', env: { ...base, SLACK_APP_TOKEN: 'xoxb-2' }, want: /^SLACK_APP_TOKEN must be an app-level token/ },
    { name: 'a bad port', env: { ...base, PORT: '70000' }, want: /^PORT must be a whole number from 1 to 65535, got "70000"/ },
    { name: 'a bad API URL', env: { ...base, SLACK_API_URL: 'ftp://x' }, want: /^SLACK_API_URL must be an http\(s\) URL/ },
    { name: 'no Redis', env: { ...base, REDIS_URL: undefined }, want: /^REDIS_URL is not set/ },
  ])('$name', ({ env, want }) => {
    expect(() => readBotConfig(env)).toThrow(ConfigError);
    expect(() => readBotConfig(env)).toThrow(want);
  });

  it('never echoes a token', () => {
    expect(() => readBotConfig({ ...base, SLACK_BOT_TOKEN: 'xoxp-very-secret' })).toThrow(/^(?!.*very-secret)/);
  });

  it.each([
    { name: 'HTTP mode, defaults', env: base, want: { appToken: undefined, port: 3000, planTtlSeconds: 300 } },
    { name: 'Socket Mode needs no signing secret', env: { ...base, SLACK_SIGNING_SECRET: undefined, SLACK_APP_TOKEN: 'xapp-1' }, want: { appToken: 'xapp-1' } },
    { name: 'API URL gets its slash', env: { ...base, SLACK_API_URL: 'http://127.0.0.1:9/api' }, want: { slackApiUrl: 'http://127.0.0.1:9/api/' } },
  ])('$name', ({ env, want }) => {
    expect(readBotConfig(env)).toMatchObject(want);
  });
});
