// Prints vitest's JSON result as one plain closing line ("tests: N passed, N failed, N skipped"),
// the form CI reads whatever the runner.
import { readFileSync } from 'node:fs';

const file = process.argv[2];
try {
  const r = JSON.parse(readFileSync(file, 'utf8'));
  const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped`);
} catch (error) {
  console.log(`tests: no results in ${file} (${error.message})`);
}
