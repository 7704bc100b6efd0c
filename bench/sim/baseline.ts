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
 * `attachRetry` of `src/` at `ref`: its source taken with `git archive` and bundled once into
 * `node_modules/.cache/` (axios and uuid are this checkout's, as the users' would be).
 */
export function baselineAt(ref: string): { readonly attach: AttachRetry; readonly commit: string } {
  const git = (...args: string[]): string =>
    execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
  const commit = git('rev-parse', '--verify', `${ref}^{commit}`);
  const dir = join(REPO_ROOT, 'node_modules', '.cache', 'never-worse-baseline', commit);
  const bundle = join(dir, 'index.cjs');
  if (!existsSync(bundle)) {
    mkdirSync(dir, { recursive: true });
    execFileSync('sh', ['-c', `git archive ${commit} src | tar -x -C '${dir}'`], {
      cwd: REPO_ROOT,
    });
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
  // The bundle's `require('axios')` resolves up from node_modules/.cache: this checkout's axios.
  const { attachRetry: attach } = require(bundle) as { attachRetry: AttachRetry };
  return { attach, commit: commit.slice(0, 7) };
}
