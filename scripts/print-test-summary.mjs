// Prints vitest's JSON result as one plain closing line ("tests: N passed, N failed, N skipped,
// N files failed outside a test"), the form CI reads whatever the runner; with --failures, then one
// line per failed test (file, name, the first line of its failure), and for a file that failed
// outside any test (an import, a hook) the first lines of why: CI keeps only the tail of the output.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

const file = process.argv[2];
const listFailures = process.argv.includes('--failures');
try {
  const r = JSON.parse(readFileSync(file, 'utf8'));
  const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  const suites = r.testResults ?? [];
  const failedOutside = suites.filter((suite) => suite.status === 'failed' && !(suite.assertionResults ?? []).some((t) => t.status === 'failed'));
  console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped, ${failedOutside.length} files failed outside a test`);
  if (listFailures) {
    for (const suite of suites) {
      const where = relative(process.cwd(), suite.name);
      const failed = (suite.assertionResults ?? []).filter((t) => t.status === 'failed');
      for (const t of failed) console.log(`  FAILED ${where} › ${t.fullName}: ${firstLine(t.failureMessages?.[0])}`);
      // A file that failed outside any test (an import, a hook) has no failed test to name.
      if (failedOutside.includes(suite)) console.log(`  FAILED ${where}:\n${firstLines(suite.message, 12)}`);
    }
  }
} catch (error) {
  console.log(`tests: no results in ${file} (${error.message})`);
}

function firstLines(text, count) {
  return (
    String(text ?? '')
      // eslint-disable-next-line no-control-regex -- the terminal's colour codes are what it removes
      .replace(/\x1b\[[0-9;]*m/g, '')
      .split('\n')
      .slice(0, count)
      .map((line) => `    ${line.slice(0, 300)}`)
      .join('\n')
  );
}

function firstLine(text) {
  return String(text ?? '')
    .split('\n')[0]
    .slice(0, 300);
}
