// Prints vitest's JSON result as one plain closing line ("tests: N passed, N failed, N skipped"),
// the form CI reads whatever the runner; with --failures, then one line per failed test (file,
// name, the first line of its failure).
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

const file = process.argv[2];
const listFailures = process.argv.includes('--failures');
try {
  const r = JSON.parse(readFileSync(file, 'utf8'));
  const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped`);
  if (listFailures) {
    for (const suite of r.testResults ?? []) {
      const where = relative(process.cwd(), suite.name);
      const failed = (suite.assertionResults ?? []).filter((t) => t.status === 'failed');
      for (const t of failed) console.log(`  FAILED ${where} › ${t.fullName}: ${firstLine(t.failureMessages?.[0])}`);
      // A file that failed outside any test (an import, a hook) has no failed test to name.
      if (suite.status === 'failed' && failed.length === 0) console.log(`  FAILED ${where}: ${firstLine(suite.message)}`);
    }
  }
} catch (error) {
  console.log(`tests: no results in ${file} (${error.message})`);
}

function firstLine(text) {
  return String(text ?? '')
    .split('\n')[0]
    .slice(0, 300);
}
