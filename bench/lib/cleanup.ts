// Clean-up that always runs: a benchmark's steps are undone on success, failure, a signal or the
// overall time limit, each step bounded in time.
import { say } from './say.js';

type CleanupStep = { name: string; run: () => Promise<void> };

/**
 * A LIFO stack of clean-up steps. `main` runs the benchmark; the stack runs afterwards whether it
 * succeeded, threw, got SIGINT/SIGTERM or hit the overall time limit. Each step is bounded.
 */
export class Cleanup {
  private readonly steps: CleanupStep[] = [];
  private running?: Promise<void>;

  /** Adds a step; the function returned removes it again (the benchmark did it itself). */
  add(name: string, run: () => Promise<void>): () => void {
    const step = { name, run };
    this.steps.push(step);
    return () => {
      const index = this.steps.indexOf(step);
      if (index >= 0) this.steps.splice(index, 1);
    };
  }

  runAll(): Promise<void> {
    this.running ??= (async () => {
      while (this.steps.length > 0) {
        const step = this.steps.pop()!;
        say(`cleanup: ${step.name}`);
        try {
          await withTimeout(step.run(), 120_000, `cleanup step "${step.name}"`);
        } catch (error) {
          say(`cleanup: ${step.name} failed: ${(error as Error).message}`);
        }
      }
    })();
    return this.running;
  }
}

export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms / 1000}s`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Runs `main` with `cleanup` guaranteed, an overall time limit, and an exit code. */
export async function runBench(name: string, maxSeconds: number, main: (cleanup: Cleanup) => Promise<void>): Promise<never> {
  const cleanup = new Cleanup();
  let exitCode = 0;
  let interrupted = false;
  const onSignal = (signal: NodeJS.Signals) => {
    interrupted = true;
    say(`${signal}: cleaning up`);
    void cleanup.runAll().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    await withTimeout(main(cleanup), maxSeconds * 1000, `${name} (--max-seconds ${maxSeconds})`);
  } catch (error) {
    exitCode = interrupted ? 130 : 1;
    if (!interrupted) say(`${name} FAILED: ${(error as Error).stack ?? String(error)}`);
  }
  await cleanup.runAll();
  // Nothing of ours should keep the process alive; exit explicitly in case a client lingers.
  process.exit(exitCode);
}
