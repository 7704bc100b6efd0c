// Jest's own reporters (the progress of each file, then its summary), and after them the end of
// the run, so that the last lines of a long CI log say what broke and how many ran. Jest always
// prints its summary after every reporter it is given, so this one runs Jest's two itself
// (jest.config.ts names only this reporter) and prints its own lines last.
//
// It ends a Jest run with the plain line "N passed, N failed" (", N skipped" when any are), which
// CI reads to know how many tests ran. Just before it, each test that failed, by file and full
// name (`FAILED <file> › <describe> › <test>`), so that the end of a long CI log says what broke;
// a test file that could not run at all (a syntax or import error) is named there too, and counts
// as one failed. Before those, once, why the Redis suites were skipped when they were:
// __tests__/helpers/redis.ts leaves that line in a marker file when redis-server is missing (the
// marker of an earlier run is removed when this one starts).
const { readFileSync, rmSync } = require('node:fs');
const { join, relative } = require('node:path');
const { DefaultReporter, SummaryReporter, VerboseReporter } = require('@jest/reporters');

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

const firstLine = (text) =>
  String(text ?? '')
    .split('\n')
    .map((line) => line.trim())
    .find((line) => line.length > 0) ?? 'no message';

/** Each failed test, and each test file that did not run, one line each. */
function failures(results, rootDir) {
  const tests = [];
  const files = [];
  for (const file of results.testResults) {
    const path = relative(rootDir, file.testFilePath);
    if (file.testExecError) {
      files.push(`FAILED ${path} (did not run: ${firstLine(file.testExecError.message)})`);
      continue;
    }
    for (const test of file.testResults) {
      if (test.status !== 'failed') continue;
      tests.push(`FAILED ${[path, ...test.ancestorTitles, test.title].join(' › ')}`);
    }
  }
  return { tests, files };
}

/** Each hook of a reporter, called on each of `reporters` the way Jest calls its own. */
function dispatching(reporters) {
  const each =
    (hook, fallback) =>
    async (...args) => {
      for (const reporter of reporters) {
        const method = reporter[hook] ?? (fallback && reporter[fallback]);
        if (method) await method.apply(reporter, args);
      }
    };
  return {
    onRunStart: each('onRunStart'),
    onTestFileStart: each('onTestFileStart', 'onTestStart'),
    onTestCaseStart: each('onTestCaseStart'),
    onTestCaseResult: each('onTestCaseResult'),
    onTestFileResult: each('onTestFileResult', 'onTestResult'),
    onRunComplete: each('onRunComplete'),
    getLastError: () => reporters.map((reporter) => reporter.getLastError?.()).find(Boolean),
  };
}

class EndOfRunReporter {
  constructor(globalConfig, options) {
    const Progress = globalConfig.verbose ? VerboseReporter : DefaultReporter;
    this.jest = dispatching([
      new Progress(globalConfig),
      new SummaryReporter(globalConfig, options),
    ]);
    this.rootDir = globalConfig.rootDir;
  }

  onRunStart(results, options) {
    rmSync(redisMissingMarker, { force: true });
    return this.jest.onRunStart(results, options);
  }

  onTestFileStart(test) {
    return this.jest.onTestFileStart(test);
  }

  onTestCaseStart(test, info) {
    return this.jest.onTestCaseStart(test, info);
  }

  onTestCaseResult(test, result) {
    return this.jest.onTestCaseResult(test, result);
  }

  onTestFileResult(test, result, results) {
    return this.jest.onTestFileResult(test, result, results);
  }

  getLastError() {
    return this.jest.getLastError();
  }

  async onRunComplete(contexts, results) {
    await this.jest.onRunComplete(contexts, results);
    const redisMissing = takeMarker();
    if (redisMissing) console.log(redisMissing);
    const { tests, files } = failures(results, this.rootDir);
    const named = [...files, ...tests];
    if (named.length > 0) console.log(`\n${named.join('\n')}`);
    const skipped = results.numPendingTests + results.numTodoTests;
    const line = `${results.numPassedTests} passed, ${results.numFailedTests + files.length} failed`;
    console.log(skipped > 0 ? `${line}, ${skipped} skipped` : line);
  }
}

module.exports = EndOfRunReporter;
