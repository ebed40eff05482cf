import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { chartSourceDir } from './chart-repo.js';

/** A bare repository under a server's root with a working copy to commit from: the unicorn chart at charts/unicorn. */
export interface ChartGitRepo {
  /** The bare repository's folder (root/<name>.git). */
  bare: string;
  /** Commits a new chart version (and colour) on the branch; returns the commit. */
  commit(version: string, color: string): Promise<string>;
  /** Tags the newest commit (annotated when `annotated`). */
  tag(name: string, annotated?: boolean): Promise<void>;
  /** Commits a change that removes Chart.yaml; returns the commit. */
  breakChart(): Promise<string>;
}

const gitAs = ['-c', 'user.name=helmcrew-test', '-c', 'user.email=test@helmcrew.invalid', '-c', 'init.defaultBranch=main'];

export async function createChartGitRepo(root: string, name: string, firstVersion = '1.0.0', color = 'pink'): Promise<ChartGitRepo> {
  const bare = join(root, `${name}.git`);
  const work = join(root, `${name}.work`);
  const git = (...args: string[]) => execa('git', [...gitAs, ...args], { cwd: work });
  await execa('git', [...gitAs, 'init', '-q', '--bare', bare]);
  await mkdir(work, { recursive: true });
  await git('init', '-q');
  await git('remote', 'add', 'origin', bare);
  const chartDir = join(work, 'charts', 'unicorn');
  await cp(chartSourceDir, chartDir, { recursive: true });
  const commit = async (version: string, c: string) => {
    const chartYaml = join(chartDir, 'Chart.yaml');
    await writeFile(chartYaml, (await readFile(chartYaml, 'utf8')).replace(/^version: .*$/m, `version: ${version}`));
    const values = join(chartDir, 'values.yaml');
    await writeFile(values, (await readFile(values, 'utf8')).replace(/^color: .*$/m, `color: ${c}`));
    await git('add', '-A');
    await git('commit', '-q', '--allow-empty', '-m', `unicorn ${version} ${c}`);
    await git('push', '-q', 'origin', 'HEAD:refs/heads/main');
    return (await git('rev-parse', 'HEAD')).stdout.trim();
  };
  await commit(firstVersion, color);
  return {
    bare,
    commit,
    tag: async (tag, annotated = false) => {
      await git('tag', ...(annotated ? ['-a', '-m', tag] : []), tag);
      await git('push', '-q', 'origin', `refs/tags/${tag}`);
    },
    breakChart: async () => {
      await git('rm', '-q', 'charts/unicorn/Chart.yaml');
      await git('commit', '-q', '-m', 'no chart');
      await git('push', '-q', 'origin', 'HEAD:refs/heads/main');
      return (await git('rev-parse', 'HEAD')).stdout.trim();
    },
  };
}
