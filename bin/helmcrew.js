#!/usr/bin/env node
// A checkout (src/ beside bin/) always runs the TypeScript source through tsx, so a dist/ left by
// an old `npm run build` can never run in its place. The image ships dist/ and no src/: it runs
// the compiled CLI. `npx helmcrew` works in both without a build step.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const source = new URL('../src/cli/main.ts', import.meta.url);
if (existsSync(fileURLToPath(source))) {
  // The command's big libraries first, at full speed: tsx's hooks would slow each of their modules.
  const { nativeFirst } = await import('./native-first.js');
  for (const library of nativeFirst(process.argv[2])) await import(library);
  const { register } = await import('tsx/esm/api');
  register();
  await import(source.href);
} else {
  await import(new URL('../dist/cli/main.js', import.meta.url).href);
}
