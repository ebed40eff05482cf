// A helm wrapper that counts: every helm start (time, subcommand, GOGC), its end, and helm's stderr
// are recorded, then the real helm runs with the same arguments and its exit code passes through.
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface CountingHelm {
  bin: string;
  /** Subcommand of every helm started so far, in order. */
  invocations(): Promise<string[]>;
  /** What helm wrote on stderr (successful runs included), prefixed by subcommand and exit code. */
  stderr(): Promise<string>;
  /** Every finished helm: start and end (epoch seconds) and subcommand, in the order they ended. */
  spans(): Promise<HelmSpan[]>;
}

export interface HelmSpan {
  start: number;
  end: number;
  sub: string;
  /** helm's own CPU seconds (user + system), exact whatever else runs on the machine. */
  cpuS: number;
}

/** The wrapper is bash: one bash process per helm, on both sides of a comparison. */
export async function createCountingHelm(dir: string, realHelm: string): Promise<CountingHelm> {
  const bin = join(dir, 'helm');
  const logFile = join(dir, 'helm-invocations.log');
  const errFile = join(dir, 'helm-stderr.log');
  const spanFile = join(dir, 'helm-spans.log');
  await writeFile(spanFile, '');
  await writeFile(logFile, '');
  await writeFile(errFile, '');
  await writeFile(
    bin,
    `#!/usr/bin/env bash
started=$EPOCHREALTIME
printf '%s %s GOGC=%s\\n' "$started" "$1" "\${GOGC:-}" >> ${JSON.stringify(logFile)}
err=${JSON.stringify(dir)}/.err.$$
# helm's own CPU seconds (user, system) from bash's time keyword; helm's stdout goes on through fd 3.
TIMEFORMAT='%3U %3S'
exec 3>&1
cpu=$( { time ${JSON.stringify(realHelm)} "$@" 2>"$err" 1>&3 3>&-; } 2>&1 )
rc=$?
exec 3>&-
if [[ -s "$err" ]]; then
  { printf '== %s rc=%s\\n' "$1" "$rc"; cat "$err"; } >> ${JSON.stringify(errFile)}
  cat "$err" >&2
fi
rm -f "$err"
printf '%s %s %s %s\\n' "$started" "$EPOCHREALTIME" "$1" "$cpu" >> ${JSON.stringify(spanFile)}
exit $rc
`,
  );
  await chmod(bin, 0o755);
  const invocations = async () =>
    (await readFile(logFile, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split(' ')[1] ?? '?');
  const spans = async () =>
    (await readFile(spanFile, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [start, end, sub, user, system] = line.split(' ');
        return { start: Number(start), end: Number(end), sub: sub ?? '?', cpuS: Number(user) + Number(system) };
      });
  return { bin, invocations, stderr: () => readFile(errFile, 'utf8'), spans };
}

export function countBy(items: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[item] = (counts[item] ?? 0) + 1;
  return counts;
}
