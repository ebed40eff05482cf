import { chmod, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HelmCanceledError } from '../../src/controller/helm/helm-error.js';
import { HelmRunner } from '../../src/controller/helm/helm-runner.js';
import { HelmSlots, takesSlot } from '../../src/controller/helm/helm-slots.js';
import { reconcileWorkers } from '../../src/controller/queue/reconcile-queue.js';
import { createLogger } from '../../src/core/log.js';

/** A stand-in helm that notes when it starts and ends, and sleeps a moment in between. */
async function fakeHelm(): Promise<{ bin: string; lines: () => Promise<string[]> }> {
  const dir = await mkdtemp(join(tmpdir(), 'helm-slots-'));
  const bin = join(dir, 'helm');
  const log = join(dir, 'runs.log');
  await writeFile(log, '');
  await writeFile(bin, `#!/bin/sh\necho "start $1 $2" >> ${log}\nsleep 0.3\necho "end $1 $2" >> ${log}\n`);
  await chmod(bin, 0o755);
  return { bin, lines: async () => (await readFile(log, 'utf8')).split('\n').filter(Boolean) };
}

/** The most helm processes that ran at once, from the start and end lines. */
function mostAtOnce(lines: string[], sub?: string): number {
  let running = 0;
  let most = 0;
  for (const line of lines) {
    const [what, command] = line.split(' ');
    if (sub && command !== sub) continue;
    running += what === 'start' ? 1 : -1;
    most = Math.max(most, running);
  }
  return most;
}

const quiet = createLogger('test', 'silent');

describe('helm slots: at most HELMCREW_CONCURRENCY release-changing helm processes at once', () => {
  it('hands a freed slot to the first waiter, and never has more out than its size', async () => {
    const slots = new HelmSlots(2);
    const order: string[] = [];
    const a = await slots.acquire();
    const b = await slots.acquire();
    const c = slots.acquire().then((free) => (order.push('c'), free));
    const d = slots.acquire().then((free) => (order.push('d'), free));
    expect(slots.queued).toBe(2);
    a();
    a(); // giving a slot back twice frees it once
    (await c)();
    b();
    await d;
    expect(order).toEqual(['c', 'd']);
    expect(slots.queued).toBe(0);
  });

  it('stops waiting when the operation is cancelled', async () => {
    const slots = new HelmSlots(1);
    await slots.acquire();
    const cancel = new AbortController();
    const waiting = slots.acquire(cancel.signal);
    cancel.abort(new Error('newer generation'));
    await expect(waiting).rejects.toThrow('newer generation');
    expect(slots.queued).toBe(0);
  });

  it('runs installs and upgrades through the slots, pulls beside them', async () => {
    const helm = await fakeHelm();
    const runner = new HelmRunner(helm.bin, {}, quiet, undefined, new HelmSlots(2));
    const opts = (step: 'install' | 'pull', i: number) => ({ step, release: `ns/r${i}`, timeoutMs: 10_000 });
    await Promise.all([
      ...[0, 1, 2, 3, 4].map((i) => runner.run(['install', `r${i}`], opts('install', i))),
      ...[5, 6, 7].map((i) => runner.run(['pull', `r${i}`], opts('pull', i))),
    ]);
    const lines = await helm.lines();
    expect(lines.filter((l) => l.startsWith('end install'))).toHaveLength(5);
    expect(mostAtOnce(lines, 'install')).toBe(2);
    expect(mostAtOnce(lines, 'pull')).toBe(3);
  });

  it('cancels an operation waiting for a slot as it would cancel helm: it never starts', async () => {
    const helm = await fakeHelm();
    const runner = new HelmRunner(helm.bin, {}, quiet, undefined, new HelmSlots(1));
    const first = runner.run(['upgrade', 'r1'], { step: 'upgrade', release: 'ns/r1', timeoutMs: 10_000 });
    const cancel = new AbortController();
    const second = runner.run(['upgrade', 'r2'], { step: 'upgrade', release: 'ns/r2', timeoutMs: 10_000, cancelSignal: cancel.signal });
    cancel.abort();
    await expect(second).rejects.toBeInstanceOf(HelmCanceledError);
    await first;
    expect((await helm.lines()).filter((l) => l.includes('r2'))).toEqual([]);
  });

  it('takes a slot for the steps that change a release only', () => {
    expect(['install', 'upgrade', 'rollback', 'uninstall', 'test'].every((s) => takesSlot(s as never))).toBe(true);
    expect(['pull', 'dry-run', 'other'].some((s) => takesSlot(s as never))).toBe(false);
  });

  it('has twice as many reconcile workers as helm slots, so the next passes read while helm runs; one per slot without read-ahead', () => {
    expect(reconcileWorkers(4)).toBe(8);
    expect(reconcileWorkers(1, true)).toBe(2);
    expect(reconcileWorkers(4, false)).toBe(4);
  });
});
