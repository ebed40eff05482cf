import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { HelmRelease } from '../../api/helmrelease.js';
import type { HelmResult } from '../helm/helm-error.js';
import { RetryLaterError } from '../reconcile/ports/context.js';

/** Seconds: a pass that starts no helm takes milliseconds, one that waits on --wait minutes. */
const PASS_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];
const HELM_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

export type ReadyState = 'true' | 'false' | 'unknown';

/** What the node's shared helm slots (helm/node-helm-slots.ts) count for this replica, read at scrape time. */
export interface NodeSlotCounts {
  readonly queued: number;
  readonly refused: number;
  readonly unleased: number;
}

export type PassOutcome = { action: string } | { error: unknown };

/**
 * Pure: the labels of a pass. One that threw is 'retry-later' when it already reported why (a
 * chart that cannot be fetched, say) and 'unexpected-error' otherwise; result says it threw.
 */
export function passLabels(outcome: PassOutcome): { action: string; result: 'success' | 'error' } {
  if ('action' in outcome) return { action: outcome.action, result: 'success' };
  return { action: outcome.error instanceof RetryLaterError ? 'retry-later' : 'unexpected-error', result: 'error' };
}

/** Pure: the Ready condition of a release as a label value. */
export function readyState(release: HelmRelease): ReadyState {
  const status = release.status?.conditions?.find((c) => c.type === 'Ready')?.status;
  return status === 'True' ? 'true' : status === 'False' ? 'false' : 'unknown';
}

/** Pure: releases counted by Ready state (every state present, so a gauge drops to 0). */
export function countByReady(releases: readonly HelmRelease[]): Record<ReadyState, number> {
  const counts: Record<ReadyState, number> = { true: 0, false: 0, unknown: 0 };
  for (const release of releases) counts[readyState(release)]++;
  return counts;
}

/**
 * The controller's metrics. Labels come from closed sets (the pass's action, HelmStep, a
 * result word), never a release name: 1000 releases do not make 1000 series.
 */
export class ControllerMetrics {
  private readonly reconcile: Histogram<'action' | 'result'>;
  private readonly helmProcesses: Counter<'verb' | 'result'>;
  private readonly helmDuration: Histogram<'verb' | 'result'>;
  private readonly informerRestarts: Counter<'cause'>;
  private readonly watchReconnects: Counter;
  private readonly resyncTicks: Counter;

  /** What the releases gauge counts, read at scrape time (the informers' cache, once they exist). */
  private releases: () => readonly HelmRelease[] = () => [];

  constructor(private readonly registry: Registry) {
    const releases = () => this.releases();
    const registers = [registry];
    this.reconcile = new Histogram({
      name: 'helmcrew_reconcile_duration_seconds',
      help: 'Time one reconcile pass took, by what it did (action) and whether it ended in an error (result).',
      labelNames: ['action', 'result'],
      buckets: PASS_BUCKETS,
      registers,
    });
    this.helmProcesses = new Counter({
      name: 'helmcrew_helm_processes_total',
      help: 'helm processes run, by verb and result.',
      labelNames: ['verb', 'result'],
      registers,
    });
    this.helmDuration = new Histogram({
      name: 'helmcrew_helm_duration_seconds',
      help: 'How long helm processes ran, by verb and result.',
      labelNames: ['verb', 'result'],
      buckets: HELM_BUCKETS,
      registers,
    });
    this.informerRestarts = new Counter({
      name: 'helmcrew_informer_restarts_total',
      help: 'HelmRelease informers started anew, by cause (error: the watch failed; silence: nothing heard for too long).',
      labelNames: ['cause'],
      registers,
    });
    this.watchReconnects = new Counter({
      name: 'helmcrew_watch_reconnects_total',
      help: 'Watch connections opened again after the API server ended one.',
      registers,
    });
    this.resyncTicks = new Counter({
      name: 'helmcrew_resync_ticks_total',
      help: 'Periodic resync rounds run by this replica (only the leader runs them when leader election is on).',
      registers,
    });
    // Present from the start at 0, so a rate() over them works before the first restart.
    for (const cause of ['error', 'silence']) this.informerRestarts.inc({ cause }, 0);
    new Gauge({
      name: 'helmcrew_releases',
      help: 'HelmReleases this controller watches, by their Ready condition (true, false, unknown).',
      labelNames: ['ready'],
      registers,
      collect() {
        for (const [ready, count] of Object.entries(countByReady(releases()))) this.set({ ready }, count);
      },
    });
  }

  countReleases(releases: () => readonly HelmRelease[]): void {
    this.releases = releases;
  }

  /** helmcrew_leader: 1 while this replica runs the watches and resync (always, without leader election). */
  countLeadership(isLeader: () => boolean): void {
    new Gauge({
      name: 'helmcrew_leader',
      help: 'Whether this replica holds the leader Lease and runs the watches and the periodic resync (1) or not (0).',
      registers: [this.registry],
      collect() {
        this.set(isLeader() ? 1 : 0);
      },
    });
  }

  /** The node's shared helm slots: how long a queue this replica has there, and how often it was refused or ran without a lease. */
  countNodeSlots(slots: NodeSlotCounts): void {
    const registers = [this.registry];
    new Gauge({
      name: 'helmcrew_node_helm_slot_waiting',
      help: "helm processes of this replica waiting for a lease on its node's shared helm slots.",
      registers,
      collect() {
        this.set(slots.queued);
      },
    });
    // Counters read at scrape time: each grows by what the slots counted since the last scrape.
    const counted = (meta: { name: string; help: string }, read: () => number) => {
      let seen = 0;
      new Counter({
        ...meta,
        registers,
        collect() {
          const now = read();
          this.inc(now - seen);
          seen = now;
        },
      });
    };
    counted({ name: 'helmcrew_node_helm_slot_refusals_total', help: "Asks for a lease on the node's shared helm slots answered 'full'." }, () => slots.refused);
    counted(
      { name: 'helmcrew_node_helm_slot_unleased_total', help: 'helm processes run without a node lease because Redis failed or did not answer in time.' },
      () => slots.unleased,
    );
  }

  reconciled(outcome: PassOutcome, seconds: number): void {
    this.reconcile.observe(passLabels(outcome), seconds);
  }

  helmRan(verb: string, result: HelmResult, seconds: number): void {
    this.helmProcesses.inc({ verb, result });
    this.helmDuration.observe({ verb, result }, seconds);
  }

  informerRestarted(cause: 'error' | 'silence'): void {
    this.informerRestarts.inc({ cause });
  }

  watchReconnected(): void {
    this.watchReconnects.inc();
  }

  resyncTicked(): void {
    this.resyncTicks.inc();
  }
}
