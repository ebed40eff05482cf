import { createRequire } from 'node:module';
import { HELM_OUTPUT_FILE, INPUT_LAYER } from './kustomize-layers.js';

/**
 * spec.postRenderStrategy nohooks and separate (Flux's names for helm 4's post-render strategies):
 * helm's CLI always hands a post-renderer hooks and templates together ("combined"), so for the
 * other two the plugin command is this small Node program instead of the shell script. It splits
 * helm's manifest into hooks (`helm.sh/hook` annotation) and templates with the `yaml` parser the
 * controller itself uses, then runs `kustomize build` over the same layers once per part:
 * nohooks post-renders the templates and passes the hooks on as the chart rendered them; separate
 * post-renders each part on its own. A part with no documents is not built.
 */

export const SPLIT_SCRIPT_FILE = 'post-render.mjs';

/** Where the controller's `yaml` package is, handed to the program (it runs from a private folder with no node_modules). */
export function yamlModulePath(): string {
  return createRequire(import.meta.url).resolve('yaml');
}

/** The program; its arguments: the plugin folder, kustomize binary, last layer, strategy, path of the yaml module. */
export function splitScript(errorFile: string): string {
  return `// Written by helmcrew (postRenderStrategy): helm's manifest in, hooks and templates post-rendered apart, out.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
const [dir, kustomize, lastLayer, strategy, yamlModule] = process.argv.slice(2);
const { parseAllDocuments } = createRequire(import.meta.url)(yamlModule);
const hooks = [];
const templates = [];
for (const doc of parseAllDocuments(readFileSync(0, 'utf8'))) {
  const object = doc.errors.length === 0 ? doc.toJSON() : {};
  if (object === null || typeof object !== 'object') continue;
  (object.metadata?.annotations?.['helm.sh/hook'] ? hooks : templates).push(doc.toString());
}
function build(docs) {
  if (docs.length === 0) return '';
  writeFileSync(join(dir, ${JSON.stringify(INPUT_LAYER)}, ${JSON.stringify(HELM_OUTPUT_FILE)}), docs.join('---\\n'), { mode: 0o600 });
  try {
    return execFileSync(kustomize, ['build', join(dir, lastLayer)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 512 * 1024 * 1024 });
  } catch (error) {
    writeFileSync(join(dir, ${JSON.stringify(errorFile)}), String(error.stderr || error.message), { mode: 0o600 });
    process.exit(1);
  }
}
const parts = strategy === 'nohooks' ? [build(templates), hooks.join('---\\n')] : [build(hooks), build(templates)];
process.stdout.write(parts.filter((part) => part !== '').join('---\\n'));
`;
}
