#!/usr/bin/env node
// Sums vitest JSON reports into one closing line: "tests: N passed, N failed, N skipped".
import { readFileSync } from 'node:fs';

let passed = 0, failed = 0, skipped = 0;
const failures = [];
for (const file of process.argv.slice(2)) {
  const report = JSON.parse(readFileSync(file, 'utf8'));
  const run = file.replace(/^.*\//, '').replace(/\.json$/, '');
  passed += report.numPassedTests;
  failed += report.numFailedTests + (report.numFailedTestSuites ?? 0) * 0;
  skipped += report.numPendingTests + report.numTodoTests;
  // A file that failed to load has no tests in it: count it as a failure.
  for (const suite of report.testResults ?? []) {
    if (suite.status === 'failed' && (suite.assertionResults ?? []).length === 0) {
      failed += 1;
      failures.push(`${run}: ${suite.name} (did not load: ${String(suite.message ?? '').split('\n')[0]})`);
    }
    for (const test of suite.assertionResults ?? []) {
      if (test.status !== 'failed') continue;
      // The first lines of the first failure message: the tail of a CI log is often all there is to read.
      const why = String(test.failureMessages?.[0] ?? '')
        .split('\n')
        .filter((l) => l.trim() !== '' && !/^\s+at /.test(l))
        .slice(0, 12)
        .map((l) => `    ${l.slice(0, 400)}`)
        .join('\n');
      failures.push(`${run}: ${suite.name.replace(process.cwd() + '/', '')} > ${test.fullName}${why ? `\n${why}` : ''}`);
    }
  }
}
// The failing tests last, so the end of a long CI log names them.
for (const line of failures) console.log(`FAILED ${line}`);
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
