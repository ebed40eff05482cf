// What a process pays for its module graph before doing anything: plain node (tsx would add its
// own weight) imports one compiled module, collects garbage three times and prints RSS, heap and
// VmHWM as one JSON line (lib/import-rss.mjs). Give it a module of a build, e.g.
// dist/cli/commands/controller.js after `npm run build`.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../src/dev/paths.js';
import type { Benchmark } from './lib/benchmark.js';

export const benchmark: Benchmark = {
  usage: '<compiled module path, e.g. dist/cli/commands/controller.js> [--runs 3]',
  options: { runs: { type: 'string' } },
  maxSeconds: 120,
  positionals: true,
  async run(args) {
    const target = args.positionals[0];
    if (!target || args.positionals.length > 1) throw new Error('give exactly one module path');
    for (let i = 0; i < args.int('runs', 1); i++) {
      const code = await new Promise<number | null>((resolve) => {
        const child = spawn(process.execPath, ['--expose-gc', join(REPO_ROOT, 'bench', 'lib', 'import-rss.mjs'), target], { stdio: 'inherit' });
        child.once('exit', resolve);
      });
      if (code !== 0) throw new Error(`import-rss.mjs exited ${code}`);
    }
  },
};
