import { chmod, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * A helm wrapper for tests: records every invocation (so a test can count helm processes) and
 * can hold `helm upgrade` for a while (so a test can change the spec mid-upgrade), then runs the
 * real helm binary with the same arguments.
 */
export interface HelmShim {
  bin: string;
  invocations(): Promise<string[][]>;
  count(subcommand: string): Promise<number>;
  /** When each helm process of this subcommand started (ms since the epoch), in order. */
  startTimes(subcommand: string): Promise<number[]>;
  setUpgradeDelay(seconds: number): Promise<void>;
  /** Holds every later `helm <subcommand>` this long before it starts. */
  setDelay(subcommand: 'rollback' | 'uninstall' | 'install' | 'test', seconds: number): Promise<void>;
  /**
   * Holds every `helm <subcommand>` (those already waiting too) before it starts until `release`
   * is called: for a test that needs helm in flight exactly as long as it takes to set the scene.
   */
  hold(subcommand: 'upgrade' | 'rollback' | 'uninstall' | 'install' | 'test'): Promise<{ release(): Promise<void> }>;
}

export async function createHelmShim(dir: string, realHelm: string): Promise<HelmShim> {
  const bin = join(dir, 'helm');
  const log = join(dir, 'invocations.log');
  const delayFile = join(dir, 'upgrade-delay');
  const timesLog = join(dir, 'start-times.log');
  await writeFile(log, '');
  await writeFile(timesLog, '');
  await writeFile(delayFile, '0');
  await writeFile(
    bin,
    `#!/usr/bin/env bash
printf '%s\\n' "$(printf '%s\\x1f' "$@")" >> ${JSON.stringify(log)}
printf '%s %s\\n' "$(date +%s%3N)" "$1" >> ${JSON.stringify(timesLog)}
if [[ "$1" == upgrade ]]; then sleep "$(cat ${JSON.stringify(delayFile)})"; fi
if [[ -f ${JSON.stringify(dir)}/delay-"$1" ]]; then sleep "$(cat ${JSON.stringify(dir)}/delay-"$1")"; fi
while [[ -f ${JSON.stringify(dir)}/hold-"$1" ]]; do sleep 0.05; done
exec ${JSON.stringify(realHelm)} "$@"
`,
  );
  await chmod(bin, 0o755);
  const invocations = async () =>
    (await readFile(log, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split('\x1f').filter(Boolean));
  return {
    bin,
    invocations,
    count: async (subcommand) => (await invocations()).filter((args) => args[0] === subcommand).length,
    startTimes: async (subcommand) =>
      (await readFile(timesLog, 'utf8'))
        .split('\n')
        .map((line) => line.split(' '))
        .filter(([, sub]) => sub === subcommand)
        .map(([ms]) => Number(ms)),
    setUpgradeDelay: (seconds) => writeFile(delayFile, String(seconds)),
    setDelay: (subcommand, seconds) => writeFile(join(dir, `delay-${subcommand}`), String(seconds)),
    hold: async (subcommand) => {
      const file = join(dir, `hold-${subcommand}`);
      await writeFile(file, '');
      return { release: () => rm(file, { force: true }) };
    },
  };
}
