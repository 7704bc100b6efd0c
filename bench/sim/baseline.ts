// A second baseline for "never worse than off": the package as it was at a git ref (`main`, a
// tag), run on the same cases as this tree. Off is the users' floor; the ref is ours. A change
// that is worse than the ref but still better than off passes the first comparison and not this
// one (seen: a pacer change that halved the search's violations and quadrupled a Redis fleet's
// 429s). `NEVER_WORSE_BASELINE=main npm run bench -- never-worse`.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import type { attachRetry } from '../../src';

export type AttachRetry = typeof attachRetry;

const REPO_ROOT = join(__dirname, '..', '..');

/**
 * `attachRetry` of the package whose `src/` is in `dir` (under this checkout, so that its
 * `require('axios')` resolves to this checkout's axios, as the users' would), bundled once into
 * `dir/index.cjs`.
 */
export function bundledIn(dir: string): AttachRetry {
  const bundle = join(dir, 'index.cjs');
  if (!existsSync(bundle)) {
    buildSync({
      entryPoints: [join(dir, 'src', 'index.ts')],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'es2020',
      external: ['axios', 'uuid'],
      outfile: bundle,
      logLevel: 'error',
    });
  }
  return (require(bundle) as { attachRetry: AttachRetry }).attachRetry;
}

/** Where baselines are kept: `node_modules/.cache/never-worse-baseline/<name>`. */
export const baselineDir = (name: string): string =>
  join(REPO_ROOT, 'node_modules', '.cache', 'never-worse-baseline', name);

/** `attachRetry` of `src/` at `ref`, its source taken with `git archive` (once per commit). */
export function baselineAt(ref: string): { readonly attach: AttachRetry; readonly commit: string } {
  const git = (...args: string[]): string =>
    execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
  const commit = git('rev-parse', '--verify', `${ref}^{commit}`);
  const dir = baselineDir(commit);
  if (!existsSync(join(dir, 'src'))) {
    mkdirSync(dir, { recursive: true });
    execFileSync('sh', ['-c', `git archive ${commit} src | tar -x -C '${dir}'`], {
      cwd: REPO_ROOT,
    });
  }
  return { attach: bundledIn(dir), commit: commit.slice(0, 7) };
}
