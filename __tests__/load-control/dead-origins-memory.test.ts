import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

// Issue 22: 2 000 origins that refuse connections, 10 calls each (a webhook sender's day). In a
// child process with --expose-gc (fixtures/dead-origins-memory.ts): the scopes kept are bounded,
// a call to a new origin costs no more than on a fresh client (2×, with room for a loaded
// machine), and once the breaks are over and the scopes idle, at most 2 MB of heap is kept.

jest.setTimeout(180_000);

const FIXTURE = join(__dirname, 'fixtures', 'dead-origins-memory.ts');

test('2 000 dead origins: bounded scopes, new origins not slowed, ≤ 2 MB kept once idle', () => {
  const run = spawnSync(
    process.execPath,
    ['--expose-gc', '-r', 'ts-node/register/transpile-only', FIXTURE],
    { encoding: 'utf8', timeout: 170_000 },
  );
  expect(run.stderr).toBe('');
  const result = JSON.parse(run.stdout) as {
    scopes: number;
    bytesPerScope: number;
    idle: number;
    slowed: number;
    fresh: number;
  };
  // The figure the docs quote (per scope: an origin or one of its routes).
  console.log(`dead origins: ${JSON.stringify(result)}`);
  expect(result.scopes).toBeLessThanOrEqual(256);
  expect(result.idle).toBeLessThanOrEqual(2 * 1024 * 1024);
  expect(result.slowed).toBeLessThanOrEqual(2 * result.fresh + 0.5);
});
