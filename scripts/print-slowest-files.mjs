// Where a test run's time went: the N slowest files of vitest's JSON result (10 unless given),
// with their share of the summed file time. `node scripts/print-slowest-files.mjs .helmcrew/test-results.json 20`
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

const [file, countArg] = process.argv.slice(2);
const count = Number(countArg ?? 10);
try {
  const r = JSON.parse(readFileSync(file, 'utf8'));
  const files = (r.testResults ?? [])
    .map((s) => ({ name: relative(process.cwd(), s.name), ms: s.endTime - s.startTime, tests: (s.assertionResults ?? []).length }))
    .sort((a, b) => b.ms - a.ms);
  const total = files.reduce((sum, f) => sum + f.ms, 0);
  const wall = files.length ? Math.max(...(r.testResults ?? []).map((s) => s.endTime)) - r.startTime : 0;
  console.log(`${files.length} files: ${(total / 1000).toFixed(0)} s in the files, ${(wall / 1000).toFixed(0)} s from start to the last file's end`);
  for (const f of files.slice(0, count))
    console.log(`  ${(f.ms / 1000).toFixed(1).padStart(6)} s  ${((100 * f.ms) / total).toFixed(1).padStart(4)} %  ${f.name} (${f.tests} tests)`);
} catch (error) {
  console.log(`no results in ${file} (${error.message})`);
}
