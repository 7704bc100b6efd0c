// Runs the Jest suite against several axios 1.x releases, each installed in turn into one
// scratch copy of the repo. Default: the oldest release the peer range claims, and the newest 1.x.
// Pass versions to try others: `node scripts/axios-matrix.mjs 1.0.0 1.2.0 1.6.0`.
import { cpSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { jestSummary } from './lib/jest-summary.mjs';
import { createReport } from './lib/report.mjs';
import { makeTempDir, run, tail } from './lib/run.mjs';

const repo = resolve(import.meta.dirname, '..');
// The suite may import any part of the repo (src, bench, demo), so copy all of it but what
// `npm ci` makes and what builds and runs leave behind.
const notCopied = new Set(['node_modules', '.git', 'dist', 'coverage', '.tmp']);
const npmFlags = ['--prefer-offline', '--no-audit', '--no-fund'];

function oldestClaimed() {
  const range = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')).peerDependencies.axios;
  const lowest = /\d+\.\d+\.\d+/.exec(range);
  if (!lowest) throw new Error(`cannot read the lowest version of the peer range "${range}"`);
  return lowest[0];
}

const versions = process.argv.length > 2 ? process.argv.slice(2) : [oldestClaimed(), '1'];
const scratch = makeTempDir('axios-matrix');
for (const entry of readdirSync(repo)) {
  if (!notCopied.has(entry)) cpSync(join(repo, entry), join(scratch, entry), { recursive: true });
}

const ci = run('npm', ['ci', ...npmFlags], { cwd: scratch });
console.log(`npm ci in ${scratch}: ${ci.ok ? 'ok' : 'failed'} (${ci.seconds.toFixed(1)} s)`);
if (!ci.ok) {
  console.error(tail(ci.output));
  process.exit(1);
}

const report = createReport();
for (const version of versions) {
  const install = run('npm', ['install', '--no-save', ...npmFlags, `axios@${version}`], {
    cwd: scratch,
  });
  if (!install.ok) {
    report.check(`axios@${version}: install`, false, [tail(install.output)]);
    continue;
  }
  const installed = JSON.parse(
    readFileSync(join(scratch, 'node_modules/axios/package.json'), 'utf8'),
  ).version;
  // comparison.test.ts and rate-limit-burst.test.ts check the peer plugins (axios-retry,
  // retry-axios) against today's axios, for the README; on an old axios they would test them, not
  // us (axios-retry fails the burst on axios 1.1.0). So does the retry-layer case that counts
  // axios-retry at every layer. `npm test` runs them.
  const jestArgs = [
    '--ci',
    '--testPathIgnorePatterns',
    '/node_modules/',
    'comparison\\.test\\.ts',
    'rate-limit-burst\\.test\\.ts',
    '--testNamePattern',
    '^(?!.*with axios-retry at every layer)',
  ];
  const jestBin = join(scratch, 'node_modules/.bin/jest');
  const jest = run(jestBin, jestArgs, { cwd: scratch });
  // This matrix asks whether each axios works with the package. A loopback test's timing bound
  // that fails here, beside 90 other suites on two cores, is run once more alone: if it passes
  // then, the failure is said (below) but does not fail the matrix. `npm test` holds the timing
  // bounds with no second chance.
  const failedFiles = [...new Set(jest.output.match(/^FAIL \S+/gm) ?? [])].map((line) =>
    line.slice(5),
  );
  const again =
    !jest.ok && failedFiles.length > 0 && failedFiles.length <= 3
      ? run(jestBin, [...jestArgs, '--runTestsByPath', ...failedFiles], { cwd: scratch })
      : undefined;
  report.check(
    `axios ${installed} (asked for ${version}): jest ${jest.seconds.toFixed(1)} s`,
    jest.ok || !!again?.ok,
    [
      ...jestSummary(jest.output),
      ...(again
        ? [
            `run again alone (${failedFiles.join(', ')}): ${again.ok ? 'passed' : 'FAILED'}`,
            ...(again.ok ? [] : jestSummary(again.output)),
          ]
        : []),
    ],
  );
}

const passed = report.finish();
if (passed) rmSync(scratch, { recursive: true, force: true });
process.exitCode = passed ? 0 : 1;
