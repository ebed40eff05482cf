import { execFile } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

/**
 * Every module a fresh node process loads when it imports `modulePath` (from the TypeScript
 * sources, through tsx): ES modules recorded by a resolve hook, CommonJS ones from the require cache.
 */
async function modulesLoadedBy(modulePath: string): Promise<string[]> {
  const file = join(await mkdtemp(join(tmpdir(), 'helmcrew-graph-')), 'modules.txt');
  const script = `
    await import(${JSON.stringify(join(root, modulePath))});
    const { createRequire } = await import('node:module');
    const cache = createRequire(import.meta.url).cache;
    const { appendFileSync } = await import('node:fs');
    appendFileSync(${JSON.stringify(file)}, Object.keys(cache).join('\\n') + '\\n');
  `;
  await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', '--import', join(root, 'test/support/record-modules.mjs'), '--input-type=module', '-e', script],
    {
      cwd: root,
      env: { ...process.env, RECORD_MODULES_TO: file },
    },
  );
  return (await readFile(file, 'utf8')).split('\n').filter(Boolean);
}

const clientNode = (modules: string[]) => modules.filter((m) => m.includes('/@kubernetes/client-node/'));

/** What bin/helmcrew.js imports before tsx for a command (bin/native-first.js): only libraries the command loads anyway. */
async function nativeFirst(command: string): Promise<readonly string[]> {
  const table = (await import(pathToFileURL(join(root, 'bin/native-first.js')).href)) as { nativeFirst(command: string): readonly string[] };
  return table.nativeFirst(command);
}
const notLoaded = (libraries: readonly string[], modules: string[]) => libraries.filter((l) => !modules.some((m) => m.includes(`/node_modules/${l}/`)));

describe('what the controller, notify and run processes load', () => {
  // Importing @kubernetes/client-node costs ~85 MiB of RSS (docs/field-notes.md, issue 9).
  // `run` is what the chart runs; it loads the bot only when Slack is configured for it, and the bot
  // talks to the API server through the same slim client (bot/slack/app.ts). Only the terminal's
  // `helmcrew release` loads client-node (its kubeconfig may use an exec plugin).
  // One process each, all started at once before the first test (they spend their time loading
  // modules, one after another they took most of the unit project's wall time); each test judges its own.
  const SLIM = ['src/cli/commands/controller.ts', 'src/cli/commands/notify.ts', 'src/cli/commands/run.ts', 'src/cli/commands/bot.ts'];
  const TERMINAL = 'src/cli/release/terminal-session.ts';
  const WEB = 'src/cli/commands/web.ts';
  const loaded = new Map<string, Promise<string[]>>();
  beforeAll(() => {
    for (const modulePath of [...SLIM, TERMINAL, WEB]) {
      const modules = modulesLoadedBy(modulePath);
      modules.catch(() => undefined); // awaited (and reported) by its test
      loaded.set(modulePath, modules);
    }
  });

  it.each(SLIM.map((modulePath) => [modulePath]))(
    '%s does not load @kubernetes/client-node',
    async (modulePath) => {
      const modules = await loaded.get(modulePath)!;
      // The recorder saw the process's real graph: its own modules and its libraries.
      expect(modules.some((m) => m.includes('/src/core/kube/rest-client.ts'))).toBe(true);
      // A library each surely loads: BullMQ (the bot's only with a fleet or at its first preview: Bolt there).
      const library = modulePath.endsWith('/bot.ts') ? '@slack/bolt' : 'bullmq';
      expect(modules.some((m) => m.includes(`/node_modules/${library}/`))).toBe(true);
      expect(clientNode(modules)).toEqual([]);
      // Traces off costs nothing: the OpenTelemetry SDK is imported only by startTracing when configured
      // (the small @opentelemetry/api is prom-client's optional import, for exemplars).
      expect(modules.filter((m) => m.includes('/@opentelemetry/') && !m.includes('/@opentelemetry/api/'))).toEqual([]);
      // bin/helmcrew.js loads before tsx only what the command loads in any case.
      const command = /commands\/(\w+)\.ts$/.exec(modulePath)![1]!;
      expect(notLoaded(await nativeFirst(command), modules)).toEqual([]);
    },
    120_000,
  );

  it('`helmcrew web` loads what a fleet page needs, the rest on first use (docs/performance.md: its RSS)', async () => {
    const modules = await loaded.get(WEB)!;
    expect(modules.some((m) => m.includes('/node_modules/fastify/'))).toBe(true);
    // The MCP SDK at the first /mcp call, openid-client at a sign-in, bullmq at a preview, Slack's client with a bot token,
    // cron-parser (and luxon with it) at the first freeze window computed.
    const lazy = [
      '@kubernetes/client-node',
      '@modelcontextprotocol/sdk',
      'zod',
      'openid-client',
      'jose',
      'bullmq',
      '@slack/web-api',
      '@sinclair/typebox',
      'prom-client',
      'cron-parser',
    ];
    expect(lazy.filter((l) => modules.some((m) => m.includes(`/node_modules/${l}/`)))).toEqual([]);
  }, 120_000);

  it('the recorder does see client-node where a process loads it (the terminal’s /release)', async () => {
    const modules = await loaded.get(TERMINAL)!;
    expect(clientNode(modules).length).toBeGreaterThan(0);
  }, 120_000);
});
