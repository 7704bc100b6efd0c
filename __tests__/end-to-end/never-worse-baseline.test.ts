// The search's second baseline (bench/sim/baseline.ts): the package at a git ref, run on the
// same cases as src/ and judged by the same invariants, so that a change worse than the ref but
// better than off is seen (`NEVER_WORSE_BASELINE=main npm run bench -- never-worse`).
import { cpSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import axios from 'axios';
import { baselineAt, baselineDir, bundledIn } from '../../bench/sim/baseline';
import { judge, runCase, runMode } from '../../bench/sim/differential';
import { caseOf } from '../../bench/sim/search';
import { attachRetry } from '../../src';

const REPO = join(__dirname, '..', '..');
// The axios matrix runs the suite in a copy of the repo without its .git.
const inCheckout = existsSync(join(REPO, '.git'));

/** Whether `attach` installs the package's two interceptors on a fresh instance. */
function attaches(attach: typeof attachRetry): boolean {
  const instance = axios.create();
  attach(instance);
  return (
    instance.interceptors.request.handlers?.length === 1 &&
    instance.interceptors.response.handlers?.length === 1
  );
}

describe('never worse than the baseline', () => {
  it('a copy of the package’s source is bundled once and attaches as the package does', () => {
    const dir = baselineDir(`test-${process.pid}`);
    rmSync(dir, { recursive: true, force: true });
    cpSync(join(REPO, 'src'), join(dir, 'src'), { recursive: true });
    try {
      const attach = bundledIn(dir);
      expect(attach).not.toBe(attachRetry);
      expect(bundledIn(dir)).toBe(attach); // built once, then required from its bundle
      expect(attaches(attach)).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  (inCheckout ? it : it.skip)(
    'a git ref is taken from git (skipped outside a git checkout)',
    () => {
      const { attach, commit } = baselineAt('HEAD');
      expect(commit).toMatch(/^[\da-f]{7}$/);
      expect(attaches(attach)).toBe(true);
      expect(() => baselineAt('no-such-ref-anywhere')).toThrow();
    },
  );

  it('runs each case a third time with the baseline, and judges this tree against it as against off', async () => {
    // With src/'s own attachRetry as the baseline, its run is the same run as `on`, and nothing
    // is worse; against a baseline that did more jobs, `on` is.
    for (const seed of [3, 17, 42]) {
      const c = caseOf(seed, 20);
      const result = await runCase(c, attachRetry);
      expect(result.baseline).toEqual(result.on);
      expect(result.vsBaseline).toEqual([]);
      const better = { ...result.on, jobsOk: result.on.jobsOk + c.workload.jobs };
      expect(judge(c, result.on, better).map((v) => v.invariant)).toContain('a-succeeds');
      expect(await runMode(c, 'baseline', attachRetry)).toEqual(result.on);
    }
  }, 60_000);
});
