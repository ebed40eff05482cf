// Rewrites the Flux field table in docs/flux-import.md from the import's own table
// (src/cli/import/flux/field-table.ts) and helmcrew's schema as it is now.
import { readFileSync, writeFileSync } from 'node:fs';
import { renderFieldTable } from '../../src/cli/import/flux/field-table.js';

const file = new URL('../../docs/flux-import.md', import.meta.url);
const doc = readFileSync(file, 'utf8');
const updated = doc.replace(
  /(<!-- flux-fields:start -->\n)[\s\S]*?(<!-- flux-fields:end -->)/,
  (_all, start: string, end: string) => `${start}${renderFieldTable()}${end}`,
);
if (updated === doc && !doc.includes('<!-- flux-fields:start -->')) throw new Error('docs/flux-import.md has no <!-- flux-fields:start --> marker');
writeFileSync(file, updated);
console.error('docs/flux-import.md: field table written');
