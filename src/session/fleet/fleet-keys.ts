import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseClusterName } from '../../core/fleet/cluster-keys.js';
import { MIN_KEY_LENGTH } from '../../core/fleet/signed-command.js';

/**
 * The bot's per-cluster command keys: a directory with one file per cluster, named after it and
 * holding that cluster's HELMCREW_COMMAND_KEY — what a Secret mounted as a volume gives
 * (`kubectl create secret generic helmcrew-fleet-keys --from-literal=edge=… --from-literal=home=…`).
 * Read on each use, so a rotated key is used without a restart; never logged.
 */

/** Pure: which entries are keys (a Secret volume adds `..data` and other dot-names) and what is wrong with them, naming files, never contents. */
export function checkKeyFiles(files: ReadonlyArray<{ name: string; content: string }>): { clusters: string[]; problems: string[] } {
  const clusters: string[] = [];
  const problems: string[] = [];
  for (const { name, content } of files) {
    if (name.startsWith('.')) continue;
    const checked = parseClusterName(name);
    if (!checked.ok || name === 'default') {
      problems.push(`"${name}" is not a cluster name (a DNS label, as HELMCREW_CLUSTER_NAME)`);
      continue;
    }
    const length = content.trim().length;
    if (length < MIN_KEY_LENGTH) problems.push(`the key of cluster "${name}" has ${length} characters; at least ${MIN_KEY_LENGTH} (openssl rand -hex 32)`);
    else clusters.push(name);
  }
  return { clusters: clusters.sort(), problems };
}

export class FleetKeys {
  constructor(readonly dir: string) {}

  private async files(): Promise<Array<{ name: string; content: string }>> {
    const names = (await readdir(this.dir)).filter((n) => !n.startsWith('.'));
    return Promise.all(names.map(async (name) => ({ name, content: await readFile(join(this.dir, name), 'utf8') })));
  }

  /** The clusters with a usable key, or what is wrong (start-up stops on it). */
  async check(): Promise<{ clusters: string[]; problems: string[] }> {
    try {
      return checkKeyFiles(await this.files());
    } catch (error) {
      return {
        clusters: [],
        problems: [`HELMCREW_FLEET_KEYS_DIR ${this.dir} cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`],
      };
    }
  }

  async clusters(): Promise<string[]> {
    return (await this.check()).clusters;
  }

  /** A cluster's key as it is now, or undefined when there is none (or it is too short). */
  async key(cluster: string): Promise<string | undefined> {
    if (!parseClusterName(cluster).ok) return undefined;
    const content = await readFile(join(this.dir, cluster), 'utf8').catch(() => undefined);
    const key = content?.trim();
    return key && key.length >= MIN_KEY_LENGTH ? key : undefined;
  }
}
