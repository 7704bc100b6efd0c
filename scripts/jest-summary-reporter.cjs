// Ends a Jest run with the plain line "N passed, N failed" (", N skipped" when any are), which
// CI reads to know how many tests ran.
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const line = `${results.numPassedTests} passed, ${results.numFailedTests} failed`;
    console.log(skipped > 0 ? `${line}, ${skipped} skipped` : line);
  }
}

module.exports = SummaryReporter;
