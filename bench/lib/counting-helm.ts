// A helm wrapper that counts: every helm start (time, subcommand, GOGC) and helm's stderr are
// recorded, then the real helm runs with the same arguments and its exit code passes through.
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface CountingHelm {
  bin: string;
  /** Subcommand of every helm started so far, in order. */
  invocations(): Promise<string[]>;
  /** What helm wrote on stderr (successful runs included), prefixed by subcommand and exit code. */
  stderr(): Promise<string>;
}

/** The wrapper is bash: one bash process per helm, on both sides of a comparison. */
export async function createCountingHelm(dir: string, realHelm: string): Promise<CountingHelm> {
  const bin = join(dir, 'helm');
  const logFile = join(dir, 'helm-invocations.log');
  const errFile = join(dir, 'helm-stderr.log');
  await writeFile(logFile, '');
  await writeFile(errFile, '');
  await writeFile(
    bin,
    `#!/usr/bin/env bash
printf '%s %s GOGC=%s\\n' "$EPOCHREALTIME" "$1" "\${GOGC:-}" >> ${JSON.stringify(logFile)}
err=${JSON.stringify(dir)}/.err.$$
${JSON.stringify(realHelm)} "$@" 2>"$err"
rc=$?
if [[ -s "$err" ]]; then
  { printf '== %s rc=%s\\n' "$1" "$rc"; cat "$err"; } >> ${JSON.stringify(errFile)}
  cat "$err" >&2
fi
rm -f "$err"
exit $rc
`,
  );
  await chmod(bin, 0o755);
  const invocations = async () =>
    (await readFile(logFile, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split(' ')[1] ?? '?');
  return { bin, invocations, stderr: () => readFile(errFile, 'utf8') };
}

export function countBy(items: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[item] = (counts[item] ?? 0) + 1;
  return counts;
}
