import { describe, expect, it } from 'vitest';
import { newCommand } from '../../src/core/fleet/command-protocol.js';
import {
  canonicalJson,
  commandKeyProblem,
  intentPatchProblem,
  MAX_COMMAND_LIFETIME_MS,
  nonceTtlMs,
  signCommand,
  verifyCommand,
  type FleetCommand,
} from '../../src/core/fleet/signed-command.js';

const EDGE_KEY = 'e'.repeat(40);
const HOME_KEY = 'h'.repeat(40);
const NOW = Date.parse('2026-11-26T12:00:00Z');

function command(overrides: Partial<FleetCommand> = {}): FleetCommand {
  return {
    cluster: 'edge',
    namespace: 'web',
    name: 'unicorn',
    verb: 'suspend',
    patch: { metadata: { annotations: { 'helmcrew.dev/suspension': '{"by":"slack:U1"}' } }, spec: { suspend: true } },
    actor: 'slack:U1',
    nonce: 'n-1',
    expiresAt: new Date(NOW + 60_000).toISOString(),
    ...overrides,
  };
}

describe('canonical encoding', () => {
  it('is the same whatever the order of keys, at every depth, and leaves out undefined', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null }, u: undefined })).toBe('{"a":{"c":null,"d":[1,{"x":1,"y":2}]},"b":1}');
    const a = command();
    const b = JSON.parse(JSON.stringify({ ...a, patch: { spec: a.patch.spec, metadata: a.patch.metadata } })) as FleetCommand;
    expect(signCommand(b, EDGE_KEY).signature).toBe(signCommand(a, EDGE_KEY).signature);
  });
});

describe('verifying a command', () => {
  it('a command for this cluster, with its key, in time, is accepted', () => {
    const verdict = verifyCommand(signCommand(command(), EDGE_KEY), 'edge', EDGE_KEY, NOW);
    expect(verdict).toEqual({ ok: true, command: command() });
  });

  it.each([
    { name: 'signed for edge, received by home', signed: () => signCommand(command(), EDGE_KEY), cluster: 'home', key: HOME_KEY, reason: 'wrong-cluster' },
    {
      name: 'relabelled for home after signing',
      signed: () => ({ ...signCommand(command(), EDGE_KEY), command: command({ cluster: 'home' }) }),
      cluster: 'home',
      key: HOME_KEY,
      reason: 'bad-signature',
    },
    { name: 'signed with another cluster’s key', signed: () => signCommand(command(), HOME_KEY), cluster: 'edge', key: EDGE_KEY, reason: 'bad-signature' },
    {
      name: 'changed after signing (another release)',
      signed: () => ({ ...signCommand(command(), EDGE_KEY), command: command({ name: 'other' }) }),
      cluster: 'edge',
      key: EDGE_KEY,
      reason: 'bad-signature',
    },
    {
      name: 'its expiry moved after signing',
      signed: () => ({ ...signCommand(command(), EDGE_KEY), command: command({ expiresAt: new Date(NOW + 120_000).toISOString() }) }),
      cluster: 'edge',
      key: EDGE_KEY,
      reason: 'bad-signature',
    },
    {
      name: 'a truncated signature',
      signed: () => ({ ...signCommand(command(), EDGE_KEY), signature: 'abcd' }),
      cluster: 'edge',
      key: EDGE_KEY,
      reason: 'bad-signature',
    },
    {
      name: 'expired',
      signed: () => signCommand(command({ expiresAt: new Date(NOW - 1).toISOString() }), EDGE_KEY),
      cluster: 'edge',
      key: EDGE_KEY,
      reason: 'expired',
    },
    {
      name: 'living longer than a nonce is kept',
      signed: () => signCommand(command({ expiresAt: new Date(NOW + MAX_COMMAND_LIFETIME_MS + 1000).toISOString() }), EDGE_KEY),
      cluster: 'edge',
      key: EDGE_KEY,
      reason: 'lifetime-too-long',
    },
    {
      name: 'a signed patch that rewrites the chart',
      signed: () => signCommand(command({ patch: { spec: { chart: { repository: 'https://evil.example' } } } }), EDGE_KEY),
      cluster: 'edge',
      key: EDGE_KEY,
      reason: 'patch-not-intent',
    },
    { name: 'not a command at all', signed: () => ({ hello: 1 }), cluster: 'edge', key: EDGE_KEY, reason: 'malformed' },
    { name: 'an unknown verb', signed: () => signCommand(command({ verb: 'delete' as never }), EDGE_KEY), cluster: 'edge', key: EDGE_KEY, reason: 'malformed' },
    { name: 'null', signed: () => null, cluster: 'edge', key: EDGE_KEY, reason: 'malformed' },
  ])('$name: refused ($reason)', ({ signed, cluster, key, reason }) => {
    const verdict = verifyCommand(signed(), cluster, key, NOW);
    expect(verdict.ok).toBe(false);
    expect(!verdict.ok && verdict.reason).toBe(reason);
    expect(JSON.stringify(verdict)).not.toContain(key);
  });

  it('the nonce is kept until the command expires', () => {
    expect(nonceTtlMs(command(), NOW)).toBe(60_000);
    expect(nonceTtlMs(command({ expiresAt: new Date(NOW + 10).toISOString() }), NOW)).toBe(1000);
  });

  it('a new command has a fresh nonce and an expiry within the maximum', () => {
    const fields = { cluster: 'edge', namespace: 'web', name: 'u', verb: 'resume' as const, patch: { spec: { suspend: false } }, actor: 'slack:U1' };
    const [a, b] = [newCommand(fields, NOW), newCommand(fields, NOW, 60 * 60_000)];
    expect(a.nonce).not.toBe(b.nonce);
    expect(Date.parse(a.expiresAt)).toBe(NOW + 120_000);
    expect(Date.parse(b.expiresAt)).toBe(NOW + MAX_COMMAND_LIFETIME_MS);
  });
});

describe('only intents cross the fleet', () => {
  it.each([
    { patch: { spec: { suspend: true } }, want: undefined },
    { patch: { spec: { chart: { version: '2.0.0' } } }, want: undefined },
    {
      patch: { metadata: { annotations: { 'helmcrew.dev/rollback-request': 'rb-1', 'helmcrew.dev/rollback-to': 'previous' }, resourceVersion: '12' } },
      want: undefined,
    },
    { patch: { metadata: { annotations: { 'helmcrew.dev/suspension': null } }, spec: { suspend: false } }, want: undefined },
    { patch: { metadata: { annotations: { 'helmcrew.dev/test-request': 'test-1' } } }, want: undefined },
    { patch: { spec: { values: { evil: true } } }, want: /spec\.values/ },
    { patch: { spec: { chart: { version: '2.0.0', name: 'other' } } }, want: /spec\.chart/ },
    { patch: { spec: { suspend: 'yes' } }, want: /spec\.suspend/ },
    { patch: { metadata: { labels: { a: 'b' } } }, want: /metadata\.labels/ },
    { patch: { metadata: { annotations: { 'example.com/x': 'y' } } }, want: /not an intent/ },
    { patch: { status: {} }, want: /status/ },
    { patch: 'x', want: /not an object/ },
  ])('$patch', ({ patch, want }) => {
    const problem = intentPatchProblem(patch);
    if (want) expect(problem).toMatch(want);
    else expect(problem).toBeUndefined();
  });
});

describe("a verb's own intents only (its row in the verb table)", () => {
  it.each([
    { verb: 'test' as const, patch: { metadata: { annotations: { 'helmcrew.dev/test-request': 'ts-1' } } }, want: undefined },
    { verb: 'test' as const, patch: { metadata: { annotations: { 'helmcrew.dev/rollback-request': 'rb-1' } } }, want: /not an intent of test/ },
    { verb: 'suspend' as const, patch: { metadata: { annotations: { 'helmcrew.dev/forceAt': 'rt-1' } } }, want: /not an intent of suspend/ },
    {
      verb: 'rollback' as const,
      patch: { metadata: { annotations: { 'helmcrew.dev/rollback-request': 'rb-1', 'helmcrew.dev/break-glass': '{}' } } },
      want: undefined,
    },
  ])('$verb: $patch', ({ verb, patch, want }) => {
    const problem = intentPatchProblem(patch, verb);
    if (want) expect(problem).toMatch(want);
    else expect(problem).toBeUndefined();
  });
});

it('a short key is refused without being echoed', () => {
  expect(commandKeyProblem('short-secret')).toMatch(/at least 32 characters \(it is 12\)/);
  expect(commandKeyProblem('short-secret')).not.toContain('short-secret');
  expect(commandKeyProblem(EDGE_KEY)).toBeUndefined();
});
