// Ends a Jest run with the plain line "N passed, N failed" (", N skipped" when any are), which
// CI reads to know how many tests ran. Before it, once, why the Redis suites were skipped when
// they were: __tests__/helpers/redis.ts leaves that line in a marker file when redis-server is
// missing (the marker of an earlier run is removed when this one starts).
const { readFileSync, rmSync } = require('node:fs');
const { join } = require('node:path');

const redisMissingMarker = join(__dirname, '..', '.tmp', 'redis-missing');

function takeMarker() {
  try {
    const line = readFileSync(redisMissingMarker, 'utf8');
    rmSync(redisMissingMarker, { force: true });
    return line;
  } catch {
    return undefined;
  }
}

class SummaryReporter {
  onRunStart() {
    rmSync(redisMissingMarker, { force: true });
  }

  onRunComplete(_contexts, results) {
    const redisMissing = takeMarker();
    if (redisMissing) console.log(redisMissing);
    const skipped = results.numPendingTests + results.numTodoTests;
    const line = `${results.numPassedTests} passed, ${results.numFailedTests} failed`;
    console.log(skipped > 0 ? `${line}, ${skipped} skipped` : line);
  }
}

module.exports = SummaryReporter;
