// The end of a Jest run, as CI shows it: each failed test by file and full name, then the count.
// A real Jest runs on a scratch project of plain JavaScript tests with this repo's reporter.
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const repo = join(__dirname, '..', '..');

function runJestOn(files: Record<string, string>): { status: number | null; lastLines: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'reporter-'));
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    const config = {
      rootDir: dir,
      testEnvironment: 'node',
      transform: {},
      reporters: [join(repo, 'scripts', 'jest-summary-reporter.cjs')],
    };
    // stdout and stderr into one file, in the order they were written (as CI's log has them).
    const log = join(dir, 'output.log');
    const fd = openSync(log, 'w');
    const jest = join(repo, 'node_modules', 'jest', 'bin', 'jest.js');
    const run = spawnSync(process.execPath, [jest, '--ci', '--config', JSON.stringify(config)], {
      cwd: dir,
      stdio: ['ignore', fd, fd],
      timeout: 60_000,
    });
    closeSync(fd);
    const lines = readFileSync(log, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '');
    return { status: run.status, lastLines: lines.slice(-3) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('the last lines name each failed test (file › describe › test) and a file that did not run, then the count', () => {
  const { status, lastLines } = runJestOn({
    'math.test.js': `
      describe('outer', () => {
        describe('inner', () => {
          it('fails on purpose', () => expect(1).toBe(2));
        });
        it('passes', () => expect(1).toBe(1));
        it.skip('is skipped', () => {});
      });`,
    'broken.test.js': `require('./missing'); it('never runs', () => {});`,
  });
  expect(status).toBe(1);
  expect(lastLines).toEqual([
    expect.stringMatching(
      /^FAILED broken\.test\.js \(did not run: Cannot find module '\.\/missing'/,
    ),
    'FAILED math.test.js › outer › inner › fails on purpose',
    '1 passed, 2 failed, 1 skipped',
  ]);
}, 60_000);

test('a green run ends with the count alone', () => {
  const { status, lastLines } = runJestOn({ 'ok.test.js': `it('passes', () => {});` });
  expect(status).toBe(0);
  expect(lastLines.at(-1)).toBe('1 passed, 0 failed');
  expect(lastLines.join('\n')).not.toContain('FAILED');
}, 60_000);
