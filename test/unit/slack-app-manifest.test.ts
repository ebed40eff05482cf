import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { REPO_ROOT } from '../../src/dev/paths.js';

/** The bot scope each Web API method the code calls needs (Slack's method reference); auth.test needs none. */
const SCOPE_OF_METHOD: Record<string, string | null> = {
  'auth.test': null,
  'chat.postMessage': 'chat:write',
  'chat.update': 'chat:write',
  'chat.postEphemeral': 'chat:write',
  'usergroups.list': 'usergroups:read',
  'users.info': 'users:read',
  'conversations.open': 'im:write',
  'chat.getPermalink': null,
};
/** What Bolt listeners need: a slash command needs `commands`, an event its read scope. */
const SCOPE_OF_LISTENER: Record<string, string> = { command: 'commands', 'event:app_mention': 'app_mentions:read' };

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [readFileSync(path, 'utf8')] : [];
  });
}

type Manifest = {
  features: { slash_commands: Array<{ command: string }> };
  oauth_config: { scopes: { bot: string[] } };
  settings: { event_subscriptions: { bot_events: string[] }; interactivity: { is_enabled: boolean }; socket_mode_enabled: boolean };
};

describe('slack-app-manifest.yaml', () => {
  const manifest = parse(readFileSync(join(REPO_ROOT, 'slack-app-manifest.yaml'), 'utf8')) as Manifest;
  const code = ['src/notify', 'src/bot', 'src/core/slack', 'src/web'].flatMap((dir) => sources(join(REPO_ROOT, dir))).join('\n');
  const methods = new Set(
    [...code.matchAll(/\.(auth|chat|users|usergroups|conversations|reactions|views|files|team)\.([a-zA-Z]+)\(/g)].map((m) => `${m[1]}.${m[2]}`),
  );
  const listeners = [...code.matchAll(/app\.(command|event)\('([^']+)'/g)].map((m) => ({ kind: m[1]!, name: m[2]! }));

  it('has the /release command, the app_mention event, interactivity and Socket Mode', () => {
    expect(manifest.features.slash_commands.map((c) => c.command)).toEqual(listeners.filter((l) => l.kind === 'command').map((l) => l.name));
    expect(manifest.settings.event_subscriptions.bot_events).toEqual(listeners.filter((l) => l.kind === 'event').map((l) => l.name));
    expect(manifest.settings.interactivity.is_enabled).toBe(true);
    expect(manifest.settings.socket_mode_enabled).toBe(true);
  });

  it('asks for exactly the bot scopes the Web API methods and listeners in src/notify, src/bot, src/core/slack and src/web need', () => {
    expect([...methods].sort()).toEqual(Object.keys(SCOPE_OF_METHOD).sort()); // a new method: add its scope here and to the manifest
    const needed = new Set<string>();
    for (const method of methods) if (SCOPE_OF_METHOD[method]) needed.add(SCOPE_OF_METHOD[method]);
    for (const l of listeners) needed.add(SCOPE_OF_LISTENER[l.kind === 'command' ? 'command' : `event:${l.name}`]!);
    // users.info answers with the profile's email only under users:read.email (core/slack/user-emails.ts reads it).
    if (/profile\?\.email/.test(code)) needed.add('users:read.email');
    expect([...manifest.oauth_config.scopes.bot].sort()).toEqual([...needed].sort());
  });
});
