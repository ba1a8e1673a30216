// Prints jest's counts as the last line of the test output, "N passed, N failed", for CI to count.
const fs = require('node:fs');

const file = process.argv[2];
let results;
try {
  results = JSON.parse(fs.readFileSync(file, 'utf8'));
} catch {
  process.stdout.write('0 passed, 1 failed\n');
  process.stderr.write(`no jest results in ${file}: the run did not complete\n`);
  // jest can end with status 0 and no results (its process ran out of work mid-teardown): that is a failure.
  process.exit(1);
}
const failedSuites = results.numRuntimeErrorTestSuites ?? 0;
const skipped = (results.numPendingTests ?? 0) + (results.numTodoTests ?? 0);
// A suite that could not even start counts as a failure, so it cannot hide.
const failed = results.numFailedTests + failedSuites;
process.stdout.write(`${results.numPassedTests} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`);
