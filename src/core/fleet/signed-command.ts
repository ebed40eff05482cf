import { createHmac, timingSafeEqual } from 'node:crypto';
import { intentAnnotationsOf, RELEASE_ACTION_VERBS, type ReleaseActionVerb } from '../../api/release-verbs.js';
import type { IntentPatch } from '../kube/helmrelease-api.js';

/**
 * A command from the bot to one cluster's agent, across the fleet's shared Redis (pure). The bot
 * has no kubeconfig of that cluster: it sends the intent (the same merge patch it would write
 * itself, session/plan/intents.ts), signed with that cluster's key, and the agent writes it in its own
 * cluster. The signature is an HMAC-SHA256 over a canonical encoding of the whole command, which
 * names its cluster, a nonce and an expiry: a command signed for `edge` is refused by `home`
 * (another name, another key), a replay by the nonce the agent remembers until the expiry, a
 * command kept for later by the expiry.
 */

/** Every verb on one release crosses to a cluster's agent: read off the verb table, not a list of its own. */
export const COMMAND_VERBS: readonly ReleaseActionVerb[] = RELEASE_ACTION_VERBS;
export type CommandVerb = ReleaseActionVerb;

/** Longest a command may live: how long its nonce must be remembered. */
export const MAX_COMMAND_LIFETIME_MS = 10 * 60_000;
/** A shorter key is refused at start-up: HMAC is only as strong as its key. */
export const MIN_KEY_LENGTH = 32;

export interface FleetCommand {
  cluster: string;
  namespace: string;
  name: string;
  verb: CommandVerb;
  patch: IntentPatch;
  /** Who asked (a Slack user id, `slack:U…`), for the audit Event and log line. */
  actor: string;
  reason?: string;
  /** Random, once per command. */
  nonce: string;
  /** ISO 8601; refused after it. */
  expiresAt: string;
}

export interface SignedCommand {
  command: FleetCommand;
  /** Hex HMAC-SHA256 of `canonicalCommand(command)` with the cluster's key. */
  signature: string;
}

export type Refusal = 'malformed' | 'wrong-cluster' | 'bad-signature' | 'expired' | 'lifetime-too-long' | 'patch-not-intent' | 'replayed';

export type Verdict = { ok: true; command: FleetCommand } | { ok: false; reason: Refusal; message: string };

/** JSON with object keys sorted at every depth: the same command always gives the same bytes. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** What is signed: a version tag (a later format cannot be read as this one) and the command. */
export function canonicalCommand(command: FleetCommand): string {
  return `helmcrew-command-v1\n${canonicalJson(command)}`;
}

export function signCommand(command: FleetCommand, key: string): SignedCommand {
  return { command, signature: createHmac('sha256', key).update(canonicalCommand(command)).digest('hex') };
}

/**
 * Why a patch is more than an intent (the only things chat may change), or undefined: a signed
 * command still cannot rewrite a release's spec. With its verb, only that verb's annotations (its
 * row in the verb table) are an intent: a signed `test` cannot ask for a rollback.
 */
export function intentPatchProblem(patch: unknown, verb?: CommandVerb): string | undefined {
  const intentAnnotations = intentAnnotationsOf(verb);
  if (typeof patch !== 'object' || patch === null) return 'the patch is not an object';
  const { metadata, spec, ...rest } = patch as Record<string, unknown>;
  if (Object.keys(rest).length > 0) return `the patch touches ${Object.keys(rest).join(', ')}`;
  if (metadata !== undefined) {
    if (typeof metadata !== 'object' || metadata === null) return 'metadata is not an object';
    const { annotations, resourceVersion, ...other } = metadata as Record<string, unknown>;
    if (Object.keys(other).length > 0) return `the patch touches metadata.${Object.keys(other).join(', metadata.')}`;
    if (resourceVersion !== undefined && typeof resourceVersion !== 'string') return 'metadata.resourceVersion is not a string';
    if (annotations !== undefined) {
      if (typeof annotations !== 'object' || annotations === null) return 'annotations is not an object';
      for (const [name, value] of Object.entries(annotations)) {
        if (!intentAnnotations.has(name)) return `the annotation ${name} is not an intent${verb ? ` of ${verb}` : ''}`;
        if (value !== null && typeof value !== 'string') return `the annotation ${name} is not a string`;
      }
    }
  }
  if (spec !== undefined) {
    if (typeof spec !== 'object' || spec === null) return 'spec is not an object';
    const { suspend, chart, ...other } = spec as Record<string, unknown>;
    if (Object.keys(other).length > 0) return `the patch touches spec.${Object.keys(other).join(', spec.')}`;
    if (suspend !== undefined && typeof suspend !== 'boolean') return 'spec.suspend is not a boolean';
    if (chart !== undefined) {
      if (typeof chart !== 'object' || chart === null) return 'spec.chart is not an object';
      const { version, ...chartOther } = chart as Record<string, unknown>;
      if (Object.keys(chartOther).length > 0 || typeof version !== 'string') return 'of spec.chart only a version string may change';
    }
  }
  return undefined;
}

function isCommand(value: unknown): value is FleetCommand {
  if (typeof value !== 'object' || value === null) return false;
  const c = value as Record<string, unknown>;
  return (
    ['cluster', 'namespace', 'name', 'actor', 'nonce', 'expiresAt'].every((k) => typeof c[k] === 'string' && c[k].length > 0) &&
    (COMMAND_VERBS as readonly unknown[]).includes(c.verb) &&
    (c.reason === undefined || typeof c.reason === 'string') &&
    typeof c.patch === 'object' &&
    c.patch !== null
  );
}

/**
 * Whether this agent may act on `signed`: for its cluster, signed with its key, not expired, not
 * living longer than a nonce is remembered, and an intent only. The nonce (replay) is the caller's
 * to check, in Redis, after this says yes.
 */
export function verifyCommand(signed: unknown, ownCluster: string, key: string, now: number): Verdict {
  const envelope = signed as Partial<SignedCommand> | null;
  if (!envelope || typeof envelope.signature !== 'string' || !isCommand(envelope.command)) {
    return { ok: false, reason: 'malformed', message: 'not a signed command' };
  }
  const command = envelope.command;
  if (command.cluster !== ownCluster) {
    return { ok: false, reason: 'wrong-cluster', message: `signed for cluster "${command.cluster}", this is "${ownCluster}"` };
  }
  const want = Buffer.from(signCommand(command, key).signature, 'hex');
  const got = Buffer.from(envelope.signature, 'hex');
  if (got.length !== want.length || !timingSafeEqual(got, want)) {
    return { ok: false, reason: 'bad-signature', message: `the signature does not match cluster "${ownCluster}"'s key` };
  }
  const expires = Date.parse(command.expiresAt);
  if (Number.isNaN(expires) || expires <= now) return { ok: false, reason: 'expired', message: `expired at ${command.expiresAt}` };
  if (expires - now > MAX_COMMAND_LIFETIME_MS) {
    return { ok: false, reason: 'lifetime-too-long', message: `expires more than ${MAX_COMMAND_LIFETIME_MS / 60_000} minutes ahead` };
  }
  const problem = intentPatchProblem(command.patch, command.verb);
  if (problem) return { ok: false, reason: 'patch-not-intent', message: problem };
  return { ok: true, command };
}

/** How long the nonce must be remembered: until the command expires (at least a second, as SET PX needs). */
export function nonceTtlMs(command: FleetCommand, now: number): number {
  return Math.max(1000, Date.parse(command.expiresAt) - now);
}

/** HELMCREW_COMMAND_KEY, or why it cannot be one (never echoing it). */
export function commandKeyProblem(key: string): string | undefined {
  return key.length < MIN_KEY_LENGTH
    ? `HELMCREW_COMMAND_KEY must be at least ${MIN_KEY_LENGTH} characters (it is ${key.length}); e.g. \`openssl rand -hex 32\``
    : undefined;
}
