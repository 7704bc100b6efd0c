/**
 * Prints one PASS or FAIL line per check, with its details indented below, and at the end the
 * plain tally line `N passed, N failed` that CI logs and humans both read.
 */
export function createReport() {
  let passed = 0;
  let failed = 0;
  return {
    check(name, ok, details = []) {
      if (ok) passed += 1;
      else failed += 1;
      console.log(`${ok ? 'PASS' : 'FAIL'} ${name}`);
      for (const line of details) console.log(`    ${line}`);
      return ok;
    },
    /** Prints the tally and returns whether everything passed. */
    finish() {
      console.log(`${passed} passed, ${failed} failed`);
      return failed === 0;
    },
  };
}
