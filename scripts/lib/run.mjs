import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Runs a command to completion and returns its exit status, its output and how long it took.
 * The output is captured, not shown, so a caller prints only what explains a failure.
 */
export function run(command, args, { cwd, env } = {}) {
  const started = performance.now();
  const result = spawnSync(command, args, {
    cwd,
    env: env ? { ...process.env, ...env } : process.env,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}${result.error ? String(result.error) : ''}`;
  return {
    ok: result.status === 0,
    status: result.status,
    stdout: result.stdout ?? '',
    output,
    seconds: (performance.now() - started) / 1000,
  };
}

/** A fresh directory under the OS temp dir. */
export function makeTempDir(label) {
  return mkdtempSync(join(tmpdir(), `axios-safe-retry-${label}-`));
}

/** The last `lines` lines of a command's output, indented, for a FAIL line's explanation. */
export function tail(output, lines = 25) {
  return output
    .trimEnd()
    .split('\n')
    .slice(-lines)
    .map((line) => `    ${line}`)
    .join('\n');
}
