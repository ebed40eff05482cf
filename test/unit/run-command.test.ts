import { describe, expect, it } from 'vitest';
import { botWanted } from '../../src/cli/commands/run.js';

/** `helmcrew run` starts the bot only when Slack can reach it. */
describe('botWanted', () => {
  it.each([
    { name: 'nothing', env: {}, want: false },
    { name: 'bot token only: notifications, no bot', env: { SLACK_BOT_TOKEN: 'xoxb-1' }, want: false },
    { name: 'bot token + app token: Socket Mode', env: { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1' }, want: true },
    { name: 'bot token + signing secret: HTTP mode', env: { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's' }, want: true },
    { name: 'signing secret without a bot token', env: { SLACK_SIGNING_SECRET: 's' }, want: false },
    { name: 'empty values count as unset', env: { SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: '', SLACK_SIGNING_SECRET: '' }, want: false },
  ])('$name → $want', ({ env, want }) => {
    expect(botWanted(env)).toBe(want);
  });
});
