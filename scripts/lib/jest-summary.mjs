// Jest's output, cut to what a CI log needs to name a failure and say why: each failed test's
// title, the first line of its error, its Expected/Received lines and the line of the test that
// failed (from Jest's code frame), then the final counts. Used by the axios and Node matrices,
// which otherwise print only whether the suite passed.
export function jestSummary(output) {
  const lines = output.split('\n').map((line) => line.trim());
  const failures = [];
  lines.forEach((line, index) => {
    if (!line.startsWith('●') || line === '● Console') return;
    const after = lines.slice(index + 1, index + 80);
    const end = after.findIndex((next) => next.startsWith('●'));
    const block = end < 0 ? after : after.slice(0, end);
    const reason = block.find((next) => next !== '') ?? '';
    const values = block.filter((next) => /^(Expected|Received)\b/.test(next)).slice(0, 4);
    const at = block.find((next) => /^> \d+ \|/.test(next));
    failures.push([line, reason, ...values, ...(at ? [at] : [])].join('\n        '));
  });
  const counts = lines.filter((line) => /^(Tests|Test Suites):/.test(line));
  return [...new Set(failures)].slice(0, 12).concat(counts);
}
