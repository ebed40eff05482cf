#!/usr/bin/env node
// Runs the compiled CLI when it exists (the container image), otherwise the TypeScript source
// through tsx (a checkout), so `npx helmcrew` works in both without a build step.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const compiled = new URL('../dist/cli/main.js', import.meta.url);
if (existsSync(fileURLToPath(compiled))) {
  await import(compiled.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(new URL('../src/cli/main.ts', import.meta.url).href);
}
