import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The session's layers: grammar/ parses, authz/ decides who may, plan/ and verbs/ (each verb's plan,
 * intent and outcome) decide what happens; all are pure. They may import code (not only types) from the pure places listed here and
 * nothing else: no Kubernetes client, Bolt, Redis or node built-in. I/O lives in execute/ and slack/;
 * session/ runs the one /release flow that slack/ and the terminal drive through ports.
 */

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const bot = join(root, 'src/bot');
const session = join(root, 'src/session');

const PURE: Record<string, string[]> = {
  // semver: a pure library (what a version looks like); duration.ts: what a Go duration is.
  // release-verbs.ts: the verb table, plain data.
  grammar: ['src/session/grammar/', 'semver', 'src/api/duration.ts', 'src/api/release-verbs.ts'],
  // cluster-match.ts: which clusters a Team's `clusters` names (pure string matching); cluster-keys.ts: what a cluster's name is.
  authz: ['src/session/authz/', 'src/session/plan/', 'src/session/grammar/', 'src/api/', 'src/core/fleet/cluster-match.ts', 'src/core/fleet/cluster-keys.ts'],
  // verbs/: each verb's own plan, intent and outcome (pure), which plan/ dispatches to.
  plan: ['src/session/plan/', 'src/session/verbs/', 'src/session/grammar/', 'src/api/', 'src/core/release/'],
  verbs: ['src/session/verbs/', 'src/session/plan/', 'src/session/grammar/', 'src/api/', 'src/core/release/'],
};

const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));

/** Every `import … from '…'` that brings in code (with `typesToo`, every import), as a path from the repository root (or the bare package name). */
function importsOf(file: string, typesToo = false): string[] {
  const source = readFileSync(file, 'utf8');
  return [...source.matchAll(/^import\s+(type\s+)?[^;]*?from\s+'([^']+)';/gms)]
    .filter((m) => typesToo || !m[1])
    .map((m) => m[2]!)
    .map((spec) => (spec.startsWith('.') ? relative(root, resolve(dirname(file), spec)).replace(/\.js$/, '.ts') : spec));
}

describe('bot layers', () => {
  for (const [layer, allowed] of Object.entries(PURE)) {
    it(`${layer}/ imports code only from ${allowed.join(', ')}`, () => {
      const offending = files(join(session, layer)).flatMap((file) =>
        importsOf(file)
          .filter((path) => !allowed.some((prefix) => path.startsWith(prefix)))
          .map((path) => `${relative(root, file)} → ${path}`),
      );
      expect(offending).toEqual([]);
    });
  }

  it('execute/ serves Slack and the terminal alike: it never imports slack/', () => {
    const offending = files(join(session, 'execute')).flatMap((file) =>
      importsOf(file, true)
        .filter((path) => path.startsWith('src/bot/slack/'))
        .map((path) => `${relative(root, file)} → ${path}`),
    );
    expect(offending).toEqual([]);
  });

  it('session/ is the one /release flow for Slack and the terminal: it imports no transport (slack/, Bolt, readline)', () => {
    const offending = files(join(session, 'flow')).flatMap((file) =>
      importsOf(file, true)
        .filter((path) => path.startsWith('src/bot/slack/') || path.startsWith('@slack/') || path.startsWith('node:'))
        .map((path) => `${relative(root, file)} → ${path}`),
    );
    expect(offending).toEqual([]);
  });

  it('the adapters (slack/, the terminal) leave the flow to session/: they neither parse, query, plan nor write a /release command themselves', () => {
    const adapters = [...files(join(bot, 'slack')), join(root, 'src/cli/commands/release.ts'), join(root, 'src/cli/release/terminal-session.ts')];
    const offending = adapters.flatMap((file) => [
      ...importsOf(file)
        .filter((path) => ['src/session/grammar/parse.ts', 'src/session/execute/queries.ts'].includes(path))
        .map((path) => `${relative(root, file)} → ${path}`),
      ...(/\bops\.(draft|plan|prepare|apply)\(|parseReleaseCommand\(|runQuery\(/.test(readFileSync(file, 'utf8'))
        ? [`${relative(root, file)} runs a step of the flow`]
        : []),
    ]);
    expect(offending).toEqual([]);
  });

  it('no file in src/bot is over 300 lines', () => {
    const long = [...files(bot), ...files(session)]
      .map((file) => ({ file: relative(root, file), lines: readFileSync(file, 'utf8').split('\n').length }))
      .filter(({ lines }) => lines > 300);
    expect(long).toEqual([]);
  });

  it('every HelmRelease write goes through HelmReleaseApi (core/kube/helmrelease-api.ts): no raw custom-object client or patch in src/bot', () => {
    const raw = [...files(bot), ...files(session)].filter((file) =>
      /\.custom\.|CustomObjectsApi|\b(mergePatch|jsonPatch)\b|kube-clients\.js/.test(readFileSync(file, 'utf8')),
    );
    expect(raw.map((file) => relative(root, file))).toEqual([]);
  });
});
