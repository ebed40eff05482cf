// What starting a child costs the parent's CPU: a bare child_process.spawn against execa with the
// options helm-runner.ts passes (values on stdin, a timeout, the environment built once), and with
// some of them left out, so a change to how helm is started can be weighed before a burst is run.
// The child is /bin/cat (it reads stdin and exits), so the figure is the parent's side only.
// `node bench/tools/spawn-cost.mjs [RUNS] [ROUNDS]` (300 and 2 by default; run on a quiet machine).
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { execa } from 'execa';

const [runs = 300, rounds = 2] = process.argv.slice(2).map(Number);
const env = Object.fromEntries(Object.entries(process.env).filter((entry) => entry[1] !== undefined));
const input = 'replicaCount: 0\n';
const asTheRunner = { env, extendEnv: false, reject: false, cleanup: false, timeout: 300_000, killSignal: 'SIGTERM', forceKillAfterDelay: 10_000 };

const ways = {
  'spawn, stdin piped': () =>
    new Promise((resolve, reject) => {
      const child = spawn('/bin/cat', [], { env, stdio: ['pipe', 'pipe', 'pipe'] });
      child.stdin.on('error', () => undefined);
      child.stdin.end(input);
      child.stdout.resume();
      child.stderr.resume();
      child.on('error', reject);
      child.on('close', resolve);
    }),
  'execa, as helm-runner.ts': () => execa('/bin/cat', [], { ...asTheRunner, input }),
  'execa, no timeout': () => execa('/bin/cat', [], { ...asTheRunner, timeout: undefined, forceKillAfterDelay: false, input }),
  'execa, stdin ignored': () => execa('/bin/cat', [], { ...asTheRunner, stdin: 'ignore' }),
};

for (let round = 1; round <= rounds; round++) {
  for (const [name, start] of Object.entries(ways)) {
    const cpu = process.cpuUsage();
    const wall = performance.now();
    for (let i = 0; i < runs; i++) await start();
    const used = process.cpuUsage(cpu);
    const perRunMs = (used.user + used.system) / 1000 / runs;
    console.log(`round ${round}  ${name.padEnd(26)} ${perRunMs.toFixed(2)} ms CPU a run, ${((performance.now() - wall) / runs).toFixed(2)} ms wall`);
  }
}
