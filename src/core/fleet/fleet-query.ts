import { withoutBookkeeping } from '../kube/watch/cache-trim.js';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Freeze } from '../../api/freeze.js';
import type { HelmRelease } from '../../api/helmrelease.js';
import type { ReleaseHistory, StoredRelease } from '../helm-storage/release-storage.js';
import { valueInEffect } from '../proposals/promotion.js';
import type { ObjectRow } from '../release/object-rows.js';
import type { FleetEventRecord } from './fleet-events.js';
import { canonicalJson, MAX_COMMAND_LIFETIME_MS } from './signed-command.js';

/**
 * Read-only questions from the bot to one cluster's agent, on that cluster's `command` queue (pure).
 * The bot has no kubeconfig of that cluster: `/release list|status|history|diff --cluster edge`, the
 * plan of a change and the wait for its outcome read the agent's answers. Nothing is kept at rest
 * (no inventory to keep current): a question costs a job only when someone asks. Signed like a
 * command (the cluster's key, its name, an expiry), so only the bot asks; a read changes nothing,
 * so its nonce is not remembered.
 *
 * Answers travel through Redis, so they carry no secret: inline values and helm's `config` leave
 * the agent with every leaf replaced by a keyed digest (which value paths differ is still seen,
 * what they hold is not), and manifests (which hold rendered Secrets) not at all.
 */

export type FleetQuestion =
  | { kind: 'list'; namespace?: string }
  | { kind: 'get'; namespace: string; name: string }
  | { kind: 'history'; namespace: string; releaseName: string }
  /** The Freezes that hold in that cluster: its own Freeze objects and the fleet's freezes taking it in (for plans and `/release freezes`). */
  | { kind: 'freezes' }
  /** A release's image values in effect, at its own spec.imageUpdates paths only (a promotion's source: `/release promote`). */
  | { kind: 'image-values'; namespace: string; name: string }
  /** The Events of a release's timeline: people's actions and proposals' steps (fleet-events.ts), for the web's release page. */
  | { kind: 'events'; namespace: string; name: string }
  /** A release's inventory objects and their health, read in that cluster as the release's identity (fleet-objects.ts), for the web's release page. */
  | { kind: 'objects'; namespace: string; name: string };

export interface FleetQuery {
  cluster: string;
  question: FleetQuestion;
  nonce: string;
  expiresAt: string;
}

export interface SignedQuery {
  query: FleetQuery;
  signature: string;
}

/** The job name a query travels under on the `command` queue (commands use their verb). */
export const QUERY_JOB = 'query';

export type QueryAnswer =
  | { ok: true; kind: 'list'; releases: HelmRelease[] }
  | { ok: true; kind: 'get'; release?: HelmRelease }
  | { ok: true; kind: 'history'; history: ReleaseHistory }
  | { ok: true; kind: 'freezes'; freezes: Freeze[] }
  | { ok: true; kind: 'image-values'; values: Record<string, string> }
  | { ok: true; kind: 'events'; events: FleetEventRecord[] }
  | { ok: true; kind: 'objects'; objects: ObjectRow[] }
  | { ok: false; message: string };

const canonicalQuery = (query: FleetQuery) => `helmcrew-query-v1\n${canonicalJson(query)}`;

export function newQuery(cluster: string, question: FleetQuestion, now: number, lifetimeMs = 60_000): FleetQuery {
  return { cluster, question, nonce: randomBytes(12).toString('hex'), expiresAt: new Date(now + Math.min(lifetimeMs, MAX_COMMAND_LIFETIME_MS)).toISOString() };
}

export function signQuery(query: FleetQuery, key: string): SignedQuery {
  return { query, signature: createHmac('sha256', key).update(canonicalQuery(query)).digest('hex') };
}

const NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
const okName = (value: unknown): boolean => typeof value === 'string' && value.length <= 253 && NAME.test(value);

function isQuestion(value: unknown): value is FleetQuestion {
  if (typeof value !== 'object' || value === null) return false;
  const q = value as Record<string, unknown>;
  if (q.kind === 'list') return q.namespace === undefined || okName(q.namespace);
  if (q.kind === 'get') return okName(q.namespace) && okName(q.name);
  if (q.kind === 'history') return okName(q.namespace) && okName(q.releaseName);
  if (q.kind === 'image-values' || q.kind === 'events' || q.kind === 'objects') return okName(q.namespace) && okName(q.name);
  return q.kind === 'freezes';
}

/** Whether this agent answers `signed`: a well-formed question, for its cluster, signed with its key, not expired. */
export function verifyQuery(signed: unknown, ownCluster: string, key: string, now: number): { ok: true; query: FleetQuery } | { ok: false; message: string } {
  const envelope = signed as Partial<SignedQuery> | null;
  const query = envelope?.query;
  if (
    !envelope ||
    typeof envelope.signature !== 'string' ||
    !query ||
    typeof query.cluster !== 'string' ||
    typeof query.expiresAt !== 'string' ||
    !isQuestion(query.question)
  ) {
    return { ok: false, message: 'not a signed query' };
  }
  if (query.cluster !== ownCluster) return { ok: false, message: `signed for cluster "${query.cluster}", this is "${ownCluster}"` };
  const want = Buffer.from(signQuery(query, key).signature, 'hex');
  const got = Buffer.from(envelope.signature, 'hex');
  if (got.length !== want.length || !timingSafeEqual(got, want)) return { ok: false, message: `the signature does not match cluster "${ownCluster}"'s key` };
  const expires = Date.parse(query.expiresAt);
  if (Number.isNaN(expires) || expires <= now) return { ok: false, message: `expired at ${query.expiresAt}` };
  if (expires - now > MAX_COMMAND_LIFETIME_MS) return { ok: false, message: 'expires too far ahead' };
  return { ok: true, query };
}

/** Every leaf replaced by a keyed digest: the same value gives the same digest (paths that differ still differ), the value is not readable. */
export function maskLeaves(value: unknown, maskKey: string): unknown {
  if (Array.isArray(value) || value === null || typeof value !== 'object') {
    return `#${createHmac('sha256', maskKey).update(canonicalJson(value)).digest('hex').slice(0, 16)}`;
  }
  return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, maskLeaves(v, maskKey)]));
}

/** The key values are masked with: derived from the cluster's command key, so every replica of an agent masks alike. */
export function maskKeyOf(commandKey: string): string {
  return createHmac('sha256', commandKey).update('helmcrew-values-mask-v1').digest('hex');
}

/** A HelmRelease as it may leave the cluster: no managed fields, no last-applied copy (it holds the values), values masked. */
export function releaseForFleet(release: HelmRelease, maskKey: string): HelmRelease {
  return {
    ...withoutBookkeeping(release),
    spec: { ...release.spec, ...(release.spec.values ? { values: maskLeaves(release.spec.values, maskKey) as Record<string, unknown> } : {}) },
  };
}

/** Helm's history as it may leave the cluster: no manifests, `config` masked. */
export function historyForFleet(history: ReleaseHistory, maskKey: string): ReleaseHistory {
  const one = (r: StoredRelease): StoredRelease => {
    const { manifest: _manifest, config, ...rest } = r;
    return { ...rest, config: maskLeaves(config, maskKey) as Record<string, unknown> };
  };
  const releases = history.releases.map(one);
  const same = (r: StoredRelease | undefined) => (r ? releases.find((x) => x.revision === r.revision) : undefined);
  return { releases, latest: same(history.latest), deployed: same(history.deployed) };
}

/**
 * A release's image values in effect (an approved override, else spec.values) at the paths its
 * own spec.imageUpdates name — image tags and digests, declared as such — and nowhere else: the
 * rest of its values stay masked for the fleet.
 */
export function imageValuesForFleet(release: HelmRelease): Record<string, string> {
  const paths = (release.spec.imageUpdates ?? []).flatMap((u) => (u.digestPath ? [u.valuesPath, u.digestPath] : [u.valuesPath]));
  const values: Record<string, string> = {};
  for (const path of paths) {
    const value = valueInEffect(release, path);
    if (value !== undefined) values[path] = value;
  }
  return values;
}
