import { execa } from 'execa';
import { clampTimerMs } from '../../api/duration.js';
import type { Logger } from '../../core/log.js';
import { inSpan } from '../../core/tracing/tracing.js';
import { HelmCanceledError, HelmError, helmTimedOut, type HelmResult, type HelmStep } from './helm-error.js';
import { takesSlot, type HelmSlots } from './helm-slots.js';
import { takesReleaseLock, type ExitedHelmRuns } from './exited-helm-runs.js';
import { whileRunning } from './helm-children.js';
import type { NodeHelmSlots } from './node-helm-slots.js';

export interface HelmRunOptions {
  step: HelmStep;
  /** Release key for logs ("namespace/name"). */
  release: string;
  /** Kills helm after this long; helm's own --timeout should fire first. */
  timeoutMs: number;
  /** helm's own --timeout, when the command has one: a failure after it counts as a timeout. */
  helmTimeoutSeconds?: number;
  /** Written to helm's stdin (values, read with `--values -`); stdin is closed when absent. */
  input?: string;
  /** Applied to helm's stderr before it is logged or put in a HelmError (Secret values). */
  redact?: (text: string) => string;
  /** Aborting it stops helm (SIGTERM, as for its own timeout): a newer spec supersedes the operation. */
  cancelSignal?: AbortSignal;
  /** Added to the environment of this one helm process (HELM_PLUGINS for a post-renderer). */
  env?: Record<string, string>;
}

/**
 * Starts the helm binary with an argument array (never a shell) and turns failures into
 * HelmError. The only place in helmcrew that spawns helm.
 */
export class HelmRunner {
  /**
   * The controller's environment with helm's variables on top, made once: execa's `extendEnv`
   * copies process.env (a getenv per variable) at every spawn, ~1 ms a helm run (profiled).
   */
  private readonly env: Record<string, string>;

  constructor(
    private readonly helmBin: string,
    helmEnv: Record<string, string>,
    private readonly log: Logger,
    /** Told how each helm process ended (metrics); verbs are HelmSteps, a closed set. */
    private readonly observe: (verb: HelmStep, result: HelmResult, seconds: number) => void = () => undefined,
    /** At most this many release-changing helm processes at once (helm-slots.ts); none: no limit here. */
    private readonly slots?: HelmSlots,
    /** Told when a lock-taking helm has exited, however it ended (exited-helm-runs.ts). */
    private readonly exited?: ExitedHelmRuns,
    /** Every replica on this node together: at most so many release-changing helm processes (node-helm-slots.ts); none: no node limit. */
    private readonly nodeSlots?: Pick<NodeHelmSlots, 'acquire'>,
  ) {
    this.env = { ...definedOnly(process.env), ...helmEnv };
  }

  /** Each helm process is a span (`helm <subcommand>`, its verb and result) below the stage that ran it. */
  async run(args: string[], opts: HelmRunOptions): Promise<string> {
    const free = this.slots && takesSlot(opts.step) ? await this.waitForSlot(this.slots, opts) : undefined;
    let nodeFree: (() => void) | undefined;
    try {
      // After this replica's slot: what waits for the node holds a slot here, as helm would.
      if (this.nodeSlots && takesSlot(opts.step)) nodeFree = await this.waitForSlot(this.nodeSlots, opts);
      return await inSpan(`helm ${args[0] ?? ''}`.trim(), { 'helm.verb': opts.step, 'helm.command': args[0], 'helmcrew.release': opts.release }, (span) =>
        this.runHelm(args, opts, (result) => span.set({ 'helm.result': result })),
      );
    } finally {
      nodeFree?.();
      free?.();
    }
  }

  /** A newer generation arriving while the operation waits for a slot cancels it as it would cancel helm. */
  private async waitForSlot(slots: Pick<HelmSlots, 'acquire'>, opts: HelmRunOptions): Promise<() => void> {
    try {
      // An install or upgrade took its slot before it said it started (helm-slot-gate.ts): it is held for this release.
      return await slots.acquire(opts.cancelSignal, opts.release);
    } catch (error) {
      if (!opts.cancelSignal?.aborted) throw error;
      this.log.info({ release: opts.release, action: opts.step }, 'helm cancelled while waiting for a slot');
      this.observe(opts.step, 'canceled', 0);
      throw new HelmCanceledError(opts.step);
    }
  }

  private async runHelm(args: string[], opts: HelmRunOptions, ended: (result: HelmResult) => void): Promise<string> {
    const started = Date.now();
    const subprocess = execa(this.helmBin, args, {
      env: opts.env ? { ...this.env, ...opts.env } : this.env,
      extendEnv: false,
      reject: false,
      // helm-children.ts kills helm when the controller exits, with one listener for all runs.
      cleanup: false,
      // execa arms a Node timer: past 2^31-1 ms it would fire at once and kill helm.
      timeout: clampTimerMs(opts.timeoutMs),
      killSignal: 'SIGTERM',
      forceKillAfterDelay: 10_000,
      ...(opts.input !== undefined ? { input: opts.input } : { stdin: 'ignore' as const }),
      ...(opts.cancelSignal ? { cancelSignal: opts.cancelSignal } : {}),
    });
    const result = await whileRunning(subprocess, subprocess);
    const durationMs = Date.now() - started;
    if (takesReleaseLock(opts.step)) this.exited?.record(opts.release, { startedAt: started, exitedAt: started + durationMs });
    // Only the subcommand is logged: arguments may name values files but never contain values.
    const logFields = { release: opts.release, action: opts.step, helm: args[0], durationMs };
    if (result.isCanceled) {
      // Stopped for a failure found meanwhile (reconcile/actions/health-during-helm.ts), the reason the
      // signal carries: a failure in the metrics too, though the caller turns it into that failure.
      const stoppedFor = opts.cancelSignal?.reason instanceof HelmError ? opts.cancelSignal.reason : undefined;
      ended(stoppedFor ? 'failure' : 'canceled');
      this.observe(opts.step, stoppedFor ? 'failure' : 'canceled', durationMs / 1000);
      if (stoppedFor) this.log.warn({ ...logFields, exitCode: result.exitCode, error: stoppedFor.stderrExcerpt }, 'helm stopped');
      else this.log.info({ ...logFields, exitCode: result.exitCode }, 'helm cancelled');
      throw new HelmCanceledError(opts.step);
    }
    if (result.failed) {
      const timedOut = helmTimedOut({ killed: result.timedOut, durationMs, timeoutSeconds: opts.helmTimeoutSeconds });
      const error = new HelmError({
        step: opts.step,
        exitCode: result.exitCode,
        stderr: (opts.redact ?? String)(String(result.stderr ?? '')),
        timedOut,
        timeoutSeconds: opts.helmTimeoutSeconds ?? (result.timedOut ? Math.round(opts.timeoutMs / 1000) : undefined),
      });
      ended(timedOut ? 'timeout' : 'failure');
      this.observe(opts.step, timedOut ? 'timeout' : 'failure', durationMs / 1000);
      this.log.warn({ ...logFields, exitCode: result.exitCode, timedOut, error: error.stderrExcerpt }, 'helm failed');
      throw error;
    }
    ended('success');
    this.observe(opts.step, 'success', durationMs / 1000);
    this.log.info(logFields, 'helm finished');
    return String(result.stdout ?? '');
  }
}

function definedOnly(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}
