import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import type { PostRender } from '../../core/release/post-render.js';
import { HelmError } from './helm-error.js';
import { describePatch, HELM_OUTPUT_FILE, INPUT_LAYER, kustomizeLayers, probeLayer } from './kustomize-layers.js';
import { withPrivateFiles } from './private-files.js';
import { SPLIT_SCRIPT_FILE, splitScript, yamlModulePath } from './post-render-split.js';

/**
 * Helm 4 runs a post-renderer only as a plugin (`--post-renderer <plugin name>`, found under
 * HELM_PLUGINS; docs/field-notes.md). Per operation helmcrew writes a private plugin folder: a
 * plugin.yaml (type postrenderer/v1, runtime subprocess) whose command is a fixed script that
 * saves helm's manifest from stdin and execs `kustomize build` over the release's layers
 * (kustomize-layers.ts). The folder goes away when helm is done.
 */

export const PLUGIN_NAME = 'helmcrew-kustomize';
const ERROR_FILE = 'kustomize-error.txt';

/** helm gives the manifest on stdin and takes the result on stdout; kustomize only reads files, hence the script. */
const SCRIPT = `#!/bin/sh
# Written by helmcrew: helm's rendered manifest in, kustomize's build of it out.
set -e
umask 077
cat > "$HELM_PLUGIN_DIR/${INPUT_LAYER}/${HELM_OUTPUT_FILE}"
exec "$1" build "$HELM_PLUGIN_DIR/$2" 2> "$HELM_PLUGIN_DIR/${ERROR_FILE}"
`;

/**
 * Pure: plugin.yaml. The command is argv (helm runs it without a shell); helm expands ${HELM_PLUGIN_DIR} in it.
 * With `split` (postRenderStrategy nohooks or separate) the command is post-render-split.ts's Node program.
 */
export function pluginManifest(kustomizeBin: string, lastLayer: string, split?: { strategy: string; node: string; yamlModule: string }): string {
  const command = split
    ? { command: split.node, args: [`\${HELM_PLUGIN_DIR}/${SPLIT_SCRIPT_FILE}`, '${HELM_PLUGIN_DIR}', kustomizeBin, lastLayer, split.strategy, split.yamlModule] }
    : { command: '/bin/sh', args: ['${HELM_PLUGIN_DIR}/post-render.sh', kustomizeBin, lastLayer] };
  return JSON.stringify({
    apiVersion: 'v1',
    type: 'postrenderer/v1',
    name: PLUGIN_NAME,
    version: '1.0.0',
    runtime: 'subprocess',
    runtimeConfig: { platformCommand: [command] },
  });
}

/** What a helm command gains from post-rendering: its flags and its environment. */
export interface PostRenderHelm {
  args: string[];
  env: Record<string, string>;
}

/**
 * Runs `use` with the flags and environment that make helm post-render through kustomize, or with
 * none when there is nothing to post-render. A failed kustomize (helm then says only "plugin
 * exited with error") becomes a HelmError naming the patch that does not apply.
 */
export async function withPostRenderer<T>(
  opts: { workDir: string; kustomizeBin: string; postRender?: PostRender; redact?: (text: string) => string },
  use: (helm: PostRenderHelm) => Promise<T>,
): Promise<T> {
  const { postRender } = opts;
  if (!postRender) return use({ args: [], env: {} });
  const layers = kustomizeLayers(postRender);
  const files: Record<string, string> = {
    [`${PLUGIN_NAME}/plugin.yaml`]: pluginManifest(
      opts.kustomizeBin,
      layers.last,
      postRender.strategy ? { strategy: postRender.strategy, node: process.execPath, yamlModule: yamlModulePath() } : undefined,
    ),
    [`${PLUGIN_NAME}/post-render.sh`]: SCRIPT,
    ...(postRender.strategy ? { [`${PLUGIN_NAME}/${SPLIT_SCRIPT_FILE}`]: splitScript(ERROR_FILE) } : {}),
  };
  for (const [path, content] of Object.entries(layers.files)) files[`${PLUGIN_NAME}/${path}`] = content;
  return withPrivateFiles(opts.workDir, files, async (_paths, dir) => {
    try {
      return await use({ args: ['--post-renderer', PLUGIN_NAME], env: { HELM_PLUGINS: dir } });
    } catch (error) {
      if (!(error instanceof HelmError)) throw error;
      const pluginDir = join(dir, PLUGIN_NAME);
      const said = (await readFile(join(pluginDir, ERROR_FILE), 'utf8').catch(() => '')).trim();
      if (!said) throw error;
      const culprit = await findFailingPatch(pluginDir, opts.kustomizeBin, postRender);
      const what = culprit ?? 'the post-renderers (kustomize)';
      const message = `Error: post-rendering failed: ${what} does not apply: ${firstError(said)}`;
      throw new HelmError({
        step: error.step,
        exitCode: error.exitCode,
        stderr: (opts.redact ?? String)(message),
        timedOut: error.timedOut,
        timeoutSeconds: error.timeoutSeconds,
      });
    }
  });
}

/**
 * kustomize's errors name the object, not the patch: apply the patches one more at a time over
 * the same manifest until one fails. Runs only after a failure.
 */
async function findFailingPatch(pluginDir: string, kustomizeBin: string, postRender: PostRender): Promise<string | undefined> {
  const probe = join(pluginDir, 'layers', 'probe');
  await mkdir(probe, { mode: 0o700 });
  for (const [i, renderer] of postRender.renderers.entries()) {
    const count = renderer.kustomize?.patches?.length ?? 0;
    for (let j = 0; j < count; j++) {
      await writeFile(join(probe, 'kustomization.yaml'), probeLayer(postRender, i, j), { mode: 0o600 });
      const result = await execa(kustomizeBin, ['build', probe], { reject: false, timeout: 30_000, stdin: 'ignore' });
      if (result.failed) return describePatch(postRender, i, j);
    }
  }
  return undefined;
}

/** kustomize's first "Error:" line without the prefix. */
function firstError(stderr: string): string {
  const line = stderr.split('\n').find((l) => l.startsWith('Error:')) ?? stderr.split('\n')[0] ?? '';
  const text = line.replace(/^Error:\s*/, '');
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}
