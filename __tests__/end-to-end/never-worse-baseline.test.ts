// The search's second baseline (bench/sim/baseline.ts): the package at a git ref, run on the
// same cases as src/ and judged by the same invariants, so that a change worse than the ref but
// better than off is seen (`NEVER_WORSE_BASELINE=main npm run bench -- never-worse`).
import axios from 'axios';
import { baselineAt } from '../../bench/sim/baseline';
import { judge, runCase, runMode } from '../../bench/sim/differential';
import { caseOf } from '../../bench/sim/search';
import { attachRetry } from '../../src';

describe('never worse than the baseline', () => {
  it('the package at a ref is built once from git and attaches as the package does', () => {
    const first = baselineAt('HEAD');
    expect(baselineAt('HEAD').attach).toBe(first.attach); // built once, cached
    expect(first.attach).not.toBe(attachRetry);
    const instance = axios.create();
    first.attach(instance);
    // Its request interceptor, and its response-error handler.
    expect(instance.interceptors.request.handlers?.length).toBe(1);
    expect(instance.interceptors.response.handlers?.length).toBe(1);
    expect(() => baselineAt('no-such-ref-anywhere')).toThrow();
  });

  it('runs each case a third time with the baseline, and judges this tree against it as against off', async () => {
    // With src/'s own attachRetry as the baseline, its run is the same run as `on`, and nothing
    // is worse; against a baseline that did more jobs, `on` is.
    for (const seed of [3, 17, 42]) {
      const c = caseOf(seed, 20);
      const result = await runCase(c, attachRetry);
      expect(result.baseline).toEqual(result.on);
      expect(result.vsBaseline).toEqual([]);
      const worse = { ...result.on, jobsOk: result.on.jobsOk + c.workload.jobs };
      expect(judge(c, result.on, worse).map((v) => v.invariant)).toContain('a-succeeds');
      expect(await runMode(c, 'baseline', attachRetry)).toEqual(result.on);
    }
  }, 60_000);
});
