// Issue 21: never worse than off. One case is a seeded workload against a server of the family
// (bench/sim/server-family.ts), run in virtual time with load control on (the defaults) and off
// (`circuitBreaker: false, pacing: false`); the invariants compare the two runs (see
// bench/sim/differential.ts). The long run is `npm run bench -- never-worse`.
import fc from 'fast-check';
import { caseArbitrary, limiterArbitrary, openClassOf } from '../../bench/sim/cases';
import {
  type Case,
  type Invariant,
  runCase,
  runMode,
  traceMode,
} from '../../bench/sim/differential';
import { policyOf, type ServerSpec } from '../../bench/sim/server-family';

const plain: ServerSpec = {
  mount: 'origin',
  status: 429,
  headers: 'none',
  policy: false,
  noise: { ratio: 0, status: 429 },
  latency: { baseMs: 10, tailMs: 100, tailRatio: 0 },
  seed: 7,
};
const workload: Case['workload'] = {
  jobs: 40,
  concurrency: 40,
  callsPerJob: 1,
  routes: 1,
  ids: true,
  clients: 1,
  store: false,
  retries: 3,
  seed: 11,
};

async function violationsOf(c: Case, ...invariants: Invariant[]) {
  const result = await runCase(c);
  return {
    violations: result.violations.filter((v) => invariants.includes(v.invariant)),
    on: result.on,
    off: result.off,
  };
}

/** Violates none of (a)-(c), and takes no more than 1.1× off's time (no capacity bound to hide in). */
async function expectWithinOffTime(c: Case): Promise<void> {
  const { violations, on, off } = await violationsOf(c, 'a-succeeds', 'b-time', 'c-requests');
  expect(violations).toEqual([]);
  expect(on.completionMs).toBeLessThanOrEqual(off.completionMs * 1.1);
}

describe('never worse than off: the failures the search found, named (issue 21)', () => {
  it('random 429s with no header (30 %) are not a rate: the job takes no longer than with load control off', async () => {
    const c: Case = {
      server: { ...plain, noise: { ratio: 0.3, status: 429 } },
      workload: { ...workload, jobs: 33, concurrency: 33, callsPerJob: 40, retries: 5 },
    };
    expect((await violationsOf(c, 'a-succeeds', 'b-time', 'c-requests')).violations).toEqual([]);
  });

  it('a Retry-After longer than the axios timeout is waited for, as load control off waits it, not failed with ERR_RATE_LIMITED', async () => {
    const c: Case = {
      server: {
        ...plain,
        limiter: { algorithm: 'fixed', rate: 10, windowMs: 2000, burst: 0, aligned: true },
        headers: 'retry-after',
      },
      workload: { ...workload, timeoutMs: 1000, callsPerJob: 1, retries: 5 },
    };
    const { violations, on } = await violationsOf(c, 'a-succeeds', 'd-retry-after');
    expect(violations).toEqual([]);
    expect(Object.keys(on.failures).filter((f) => f.startsWith('ERR_RATE_LIMITED'))).toEqual([]);
  });

  it("a limiter on one route that sends RateLimit-Policy (express-rate-limit's draft-7) holds that route only", async () => {
    const c: Case = {
      server: {
        ...plain,
        limiter: { algorithm: 'fixed', rate: 0.1, windowMs: 10_000, burst: 0, aligned: false },
        mount: 'route',
        headers: 'draft-7',
        policy: true,
      },
      workload: { ...workload, jobs: 60, concurrency: 6, routes: 2, retries: 2 },
    };
    const { violations, on, off } = await violationsOf(c, 'a-succeeds', 'b-time');
    expect(violations).toEqual([]);
    expect(on.jobsOk).toBeGreaterThanOrEqual(off.jobsOk);
  });

  it('a burst against a token bucket that answers 429 with no header: every call done, no more requests', async () => {
    const c: Case = {
      server: {
        ...plain,
        limiter: { algorithm: 'token', rate: 92, windowMs: 1000, burst: 3, aligned: false },
        latency: { baseMs: 48, tailMs: 100, tailRatio: 0 },
      },
      workload: { ...workload, jobs: 13, concurrency: 13, retries: 5, deadlineMs: 30_000 },
    };
    expect((await violationsOf(c, 'a-succeeds', 'c-requests')).violations).toEqual([]);
  });

  it('a burst into a token bucket of 4 at 72 a second that answers 429 with no header is not held for a guessed second, nor paced at its 5 successes a second: done within 1.1× the time off takes, 20 ms besides (seed 251)', async () => {
    // Held a second from the burst, then searched from 5 a second: 1.9 s, where off took 0.4 s
    // (0.43 s now: a tenth of a second's hold from the burst, then a slow start from 50 a second).
    const c: Case = {
      server: {
        ...plain,
        limiter: { algorithm: 'token', rate: 72, windowMs: 2000, burst: 4, aligned: false },
        mount: 'route',
        latency: { baseMs: 50, tailMs: 100, tailRatio: 0 },
      },
      workload: {
        ...{ ...workload, jobs: 37, concurrency: 36, callsPerJob: 40, routes: 2, ids: false },
        ...{ store: true, retries: 5, deadlineMs: 5000, seed: 321975448 },
      },
    };
    expect((await violationsOf(c, 'a-succeeds', 'b-time', 'c-requests')).violations).toEqual([]);
  });

  it('a leaky bucket of 143 a second whose 429 says Retry-After as an HTTP date, after a burst of 3 successes: its rate is searched from what the burst got over a tenth of a second, not over the wait (seed 1137)', async () => {
    // Searched up from 3 accepted over the two-second wait (1.5 a second), the job took 2.5 s
    // where off took 2.1 s.
    const c: Case = {
      server: {
        ...plain,
        limiter: { algorithm: 'leaky', rate: 143, windowMs: 1000, burst: 3, aligned: false },
        ...{ mount: 'prefix', headers: 'retry-after-date', seed: 1856077661 },
        latency: { baseMs: 48, tailMs: 103, tailRatio: 0 },
      },
      workload: {
        ...{ ...workload, jobs: 12, concurrency: 12, callsPerJob: 5, routes: 2, retries: 10 },
        ...{ deadlineMs: 30_000, seed: 422770789 },
      },
    };
    expect((await violationsOf(c, 'a-succeeds', 'b-time', 'c-requests')).violations).toEqual([]);
  });

  it("a fleet client's 2 failures of a burst do not open every client's breaker (seed 1514)", async () => {
    // A leaky bucket with no burst answers a burst of 13 calls from 7 clients with bare 503s.
    // Each client judged its share of the throughput, ceil(10 / 7) = 2 attempts: one client's
    // two 503s opened the shared breaker, and 6 of 13 jobs failed with ERR_CIRCUIT_OPEN.
    const c: Case = {
      server: {
        ...plain,
        limiter: { algorithm: 'leaky', rate: 21, windowMs: 1000, burst: 0, aligned: true },
        mount: 'route',
        status: 503,
        policy: true,
        latency: { baseMs: 13, tailMs: 103, tailRatio: 0 },
        seed: 1867245261,
      },
      workload: {
        ...{ jobs: 13, callsPerJob: 40, routes: 2, ids: false, clients: 7, store: true },
        ...{ retries: 10, timeoutMs: 10000, seed: 15115951, concurrency: 13 },
      },
    };
    const { violations, on } = await violationsOf(c, 'a-succeeds');
    expect(violations).toEqual([]);
    expect(on.jobsOk).toBe(c.workload.jobs);
  });

  it('eight clients on one key with no store, against draft-7 headers (50;w=1): each paces at its share, not the whole quota, and every call is done', async () => {
    // Found by a scratch app (8 forked workers against express-rate-limit), not the search: each
    // client took the announced quota as the floor of its rate, eight times what the key takes,
    // and 17 of 400 calls failed here (124-127 of 1 000 for the workers).
    const c: Case = {
      server: {
        ...plain,
        limiter: { algorithm: 'fixed', rate: 50, windowMs: 1000, burst: 0, aligned: true },
        headers: 'draft-7',
        policy: true,
        latency: { baseMs: 5, tailMs: 100, tailRatio: 0 },
      },
      workload: { ...workload, jobs: 400, concurrency: 160, clients: 8 },
    };
    const { violations, on } = await violationsOf(c, 'a-succeeds', 'b-time', 'c-requests');
    expect(violations).toEqual([]);
    expect(on.jobsOk).toBe(400);
    // The ideal is 8 s (400 calls at 50 a second); issue 21 asks 1.2× for this fleet. (This bound
    // was 1.1×, met at this seed alone: over ten other seeds the run took 8.6-9.2 s. Since a cut
    // wakes the calls waiting for slots and spaces the first a gap after it, which failover
    // needs, it takes 8.9-9.8 s, 9.14 s here, with 4 % fewer requests.)
    expect(on.completionMs).toBeLessThan(1.2 * 8000);
  });

  it('eight clients sharing a store, failover (a 50/s window with no header, the port refused from 6 s to 14 s): no call fails', async () => {
    // Not a case of the search (off fails 829 of these 1 000 calls): the fleet benchmark's
    // failover, in virtual time. A call whose slot was reserved at the old rate slept until it,
    // then went to the back of the chain behind younger calls, and ran out of deadline: 45 calls
    // failed here. A cut now wakes the calls waiting for slots, oldest first, and the first slot
    // after it comes one gap later.
    const c: Case = {
      server: {
        ...plain,
        limiter: { algorithm: 'fixed', rate: 50, windowMs: 1000, burst: 0, aligned: true },
        outage: { kind: 'refused', atMs: 6000, forMs: 8000 },
        latency: { baseMs: 5, tailMs: 50, tailRatio: 0.01 },
        seed: 2,
      },
      workload: {
        ...workload,
        ...{ jobs: 1000, concurrency: 160, ids: false, clients: 8, store: true },
        ...{ retries: 10, deadlineMs: 15_000, seed: 2 },
      },
    };
    const on = await runMode(c, 'on');
    expect(on.failures).toEqual({});
    expect(on.jobsOk).toBe(1000);
  }, 30_000); // 1.3 s here: virtual time, but 1 000 calls of real work

  it('eight clients on one key with no store, against a window that says only Retry-After, answers in 2 ms: every call done within 1.1× the ideal time', async () => {
    // Found by a scratch app (8 forked workers against a plain node:http window: 1.50-1.79×) and
    // the shared-limit benchmark, not the search: each client's rate climbed in proportion to
    // itself, so one cut to 1 a second stayed there, and its last calls waited on slots reserved
    // at that rate: 24.5 s here. The climb's step, the same for every client, closes the gap.
    const c: Case = {
      server: {
        ...plain,
        limiter: { algorithm: 'fixed', rate: 50, windowMs: 1000, burst: 0, aligned: true },
        headers: 'retry-after',
        latency: { baseMs: 2, tailMs: 100, tailRatio: 0 },
      },
      workload: { ...workload, jobs: 1000, concurrency: 160, clients: 8 },
    };
    const on = await runMode(c, 'on');
    expect(on.jobsOk).toBe(1000);
    // The ideal is 20 s (1 000 calls at 50 a second); issue 21 asks 1.2×, and it takes 1.05×.
    expect(on.completionMs).toBeLessThan(1.1 * 20_000);
  });

  it('a sliding window of 4 a second whose successes say how many are left is not paced below it once they say some are (seed 1126)', async () => {
    // Two at a time, draft-8 headers, a 503 with a wait past the quota, random 429s (7 %). Paced
    // at 4 a second, a send a moment early met the 503 and a second's hold, each window: the job
    // took 17 s where off took 9.7 s. A success sent after the pace was set that says quota is
    // left beyond the requests in flight ends the pace.
    const c: Case = {
      server: {
        ...plain,
        limiter: { algorithm: 'sliding', rate: 4, windowMs: 1000, burst: 1, aligned: true },
        mount: 'prefix',
        status: 503,
        headers: 'draft-8',
        noise: { ratio: 0.07, status: 429 },
        latency: { baseMs: 2, tailMs: 103, tailRatio: 0.01 },
        seed: 2147483627,
      },
      workload: {
        ...workload,
        jobs: 39,
        concurrency: 2,
        ids: false,
        store: true,
        retries: 5,
        deadlineMs: 30_000,
        timeoutMs: 1000,
        seed: 4,
      },
    };
    await expectWithinOffTime(c);
  });

  it('a leaky bucket whose 503 says Retry-After as an HTTP date (two seconds at most) is searched for its rate, not paced at what it served before (seed 1814)', async () => {
    // 8 a second with a burst of 2, seven calls at a time. The date names the second after the
    // one the wait ends in: read as a period of two seconds, the rate was taken for 2 a second
    // from the burst's successes, and the job took 5 s where off took 4.1 s.
    const c: Case = {
      server: {
        ...plain,
        limiter: { algorithm: 'leaky', rate: 8, windowMs: 1000, burst: 2, aligned: false },
        mount: 'prefix',
        status: 503,
        headers: 'retry-after-date',
        policy: true,
        latency: { baseMs: 39, tailMs: 923, tailRatio: 0 },
        seed: 28747950,
      },
      workload: {
        ...workload,
        jobs: 13,
        concurrency: 7,
        callsPerJob: 5,
        routes: 2,
        ids: false,
        store: true,
        retries: 2,
        deadlineMs: 5000,
        timeoutMs: 1000,
        seed: 1491519711,
      },
    };
    await expectWithinOffTime(c);
  });

  it('random bare 429s (20 %) that refused 4 of the first 6 answers of a burst are no rate limit: three in four, six at least, are (seed 1049)', async () => {
    // Ten calls at once, no limiter. Two in three of four was evidence enough: the route was held
    // a second and paced, and the job took 1.9 s where off took 0.4 s.
    const c: Case = {
      server: {
        ...plain,
        mount: 'prefix',
        status: 503,
        headers: 'github',
        policy: true,
        noise: { ratio: 0.2, status: 429 },
        outage: { kind: 'refused', atMs: 2716, forMs: 511 },
        latency: { baseMs: 49, tailMs: 105, tailRatio: 0.04 },
        seed: 489767568,
      },
      workload: {
        ...workload,
        jobs: 10,
        concurrency: 10,
        callsPerJob: 40,
        ids: false,
        store: true,
        retries: 5,
        deadlineMs: 5000,
        timeoutMs: 1000,
        seed: 1020178245,
      },
    };
    await expectWithinOffTime(c);
  });

  it('a token bucket that says none remain, reset "1", and no period: its rate is searched, not taken for its burst a second (seed 1853)', async () => {
    // X-RateLimit-Limit is the bucket (17), the reset the next token rounded up to a second:
    // read as 17 a second and climbing 5 % a second, the job took 1.9 s where off took 1.1 s.
    const c: Case = {
      server: {
        ...plain,
        limiter: { algorithm: 'token', rate: 27, windowMs: 1000, burst: 17, aligned: false },
        status: 503,
        headers: 'x-ratelimit',
        latency: { baseMs: 23, tailMs: 274, tailRatio: 0 },
      },
      workload: { ...workload, jobs: 33, concurrency: 33, callsPerJob: 5, routes: 4, ids: false },
    };
    expect((await violationsOf(c, 'a-succeeds', 'b-time', 'c-requests')).violations).toEqual([]);
  });
  it('a leaky bucket whose successes say none remain, reset "1", and no period is not held on them: the job takes as long as with load control off (seed 5)', async () => {
    // nginx-like, 21 a second with a burst of 3 that it queues: at 3 in flight each success says
    // X-RateLimit-Remaining: 0, X-RateLimit-Reset: 1, yet none is refused. Held and paced on that
    // as a quota of 3 a second, the job took 3.5 s where off took 1.8 s.
    const c: Case = {
      server: {
        ...plain,
        limiter: { algorithm: 'leaky', rate: 21, windowMs: 1000, burst: 3, aligned: false },
        headers: 'x-ratelimit',
      },
      workload: { ...workload, jobs: 38, concurrency: 3 },
    };
    const { violations, on, off } = await violationsOf(c, 'a-succeeds', 'b-time', 'c-requests');
    expect(violations).toEqual([]);
    expect(on.jobsOk).toBe(38);
    expect(on.completionMs).toBeLessThanOrEqual(off.completionMs * 1.1);
  });

  it('random bare 429s (27 %) whose first answers of a burst are 4 refusals to 1 success are no rate limit while most of the burst is unanswered (seed 574)', async () => {
    // 39 calls at once: the answers of one instant, read in turn, began 1 success and 4 429s,
    // "two in three of four at least", with 34 still in flight. Held a second and paced from
    // it, the job took 1.8 s where off took 0.6 s.
    const c: Case = {
      server: {
        ...plain,
        noise: { ratio: 0.27, status: 429 },
        latency: { ...plain.latency, baseMs: 3 },
        seed: 1820279684,
      },
      workload: {
        ...workload,
        jobs: 39,
        concurrency: 39,
        callsPerJob: 40,
        routes: 3,
        ids: false,
        retries: 5,
        seed: 7,
      },
    };
    await expectWithinOffTime(c);
  });

  it('a token bucket two deep at 200 a second that answers 429 with Retry-After: 1: the two successes of a burst name no rate, it is searched (from seed 163)', async () => {
    // Twenty calls at once: two accepted, the rest told to wait a second (the next token, rounded
    // up). Read as 2 a second and climbing 5 % a second, the job took 9.5 s where off took 2.2 s.
    const c: Case = {
      server: {
        ...plain,
        limiter: { algorithm: 'token', rate: 200, windowMs: 1000, burst: 2, aligned: false },
        headers: 'retry-after',
        latency: { baseMs: 20, tailMs: 100, tailRatio: 0 },
        seed: 0,
      },
      workload: { ...workload, jobs: 20, concurrency: 20, callsPerJob: 5, ids: false, seed: 1 },
    };
    expect((await violationsOf(c, 'a-succeeds', 'b-time', 'c-requests')).violations).toEqual([]);
  });

  it('an origin down from the first call (503s for half a second), then healthy: once its breaker closes, the calls that come after the few that waited are not paced (seed 183)', async () => {
    // Four workers in a closed loop. The origin never succeeded before, so its breaker's release
    // spread the 4 waiting calls over a second and, capped at twice that until healthyAfterMs,
    // paced the loop at 8 calls a second: 6.8 s where off took 1.8 s. The spread now paces its
    // second only. What is left is the break that outlasts the outage (the open class `outage`).
    const c: Case = {
      server: {
        ...plain,
        ...{ mount: 'prefix', status: 503, headers: 'retry-after' },
        outage: { kind: '503', atMs: 0, forMs: 503 },
        latency: { baseMs: 1, tailMs: 111, tailRatio: 0 },
        seed: 1469547411,
      },
      workload: {
        ...workload,
        ...{ jobs: 38, callsPerJob: 40, ids: false, store: true, retries: 10 },
        ...{ deadlineMs: 5000, timeoutMs: 1000, seed: 778519166, concurrency: 4 },
      },
    };
    const { violations, on, off } = await violationsOf(c, 'a-succeeds', 'c-requests');
    expect(violations).toEqual([]);
    expect(on.completionMs).toBeLessThan(off.completionMs + 1500);
  });

  it("the server model's random 429s ask Retry-After: 1 where the server speaks a dialect, and nothing where it speaks none", async () => {
    // The search had no random 429 with a wait (a server in front of a busy pool), the class the
    // packed tarball met at 4.6-6.1x off's time: it is `random-429-wait` now.
    const c = (headers: ServerSpec['headers']): Case => ({
      server: { ...plain, headers, noise: { ratio: 1, status: 429 } },
      workload: { ...workload, jobs: 2, concurrency: 2, retries: 1 },
    });
    const waits = async (headers: ServerSpec['headers']) =>
      (await traceMode(c(headers), 'off')).answers.map((a) =>
        a.answer.kind === 'response' ? a.answer.headers?.['retry-after'] : 'refused',
      );
    expect(await waits('draft-7')).toEqual(['1', '1', '1', '1']);
    expect(await waits('none')).toEqual([undefined, undefined, undefined, undefined]);
    expect(openClassOf(c('draft-7'))).toBe('random-429-wait');
  });

  it('invariant (d) counts no Retry-After of an answer that came after the axios timeout: the call never read it (seed 2006)', async () => {
    // Every answer a 429 with Retry-After: 1, after 1.5 s; the call's timeout is 1 s, so axios
    // aborts each attempt and retries after its backoff, before the wait the unread answer asks.
    const c: Case = {
      server: {
        ...plain,
        ...{ headers: 'retry-after', noise: { ratio: 1, status: 429 } },
        latency: { baseMs: 1500, tailMs: 1500, tailRatio: 0 },
      },
      workload: { ...workload, ...{ jobs: 1, concurrency: 1, retries: 2, timeoutMs: 1000 } },
    };
    const { outcome, answers } = await traceMode(c, 'off');
    const [first, second] = [...answers].sort((a, b) => a.arrivedAtMs - b.arrivedAtMs);
    expect(second?.arrivedAtMs).toBeLessThan(first?.retryAfterUntilMs as number);
    expect(outcome.early).toBe(0);
  });

  it('the server model never announces a RateLimit-Policy below the rate its limiter sustains', () => {
    // A bucket of 2 at 104 a second once announced `2;w=10` (its size over the window field,
    // which only windows use): a client that believed it held a second per pair (seed 1829).
    fc.assert(
      fc.property(limiterArbitrary, (l) => {
        const policy = policyOf(l);
        if (l.algorithm === 'concurrency') return policy === undefined;
        const sustained = l.algorithm === 'token' || l.algorithm === 'leaky' ? l.rate : 0;
        return !!policy && Number.isInteger(policy.w) && policy.quota / policy.w >= sustained;
      }),
      { seed: 21, numRuns: 500 },
    );
    expect(
      policyOf({ algorithm: 'token', rate: 104, windowMs: 10_000, burst: 2, aligned: true }),
    ).toEqual({ quota: 104, w: 1 });
    expect(
      policyOf({ algorithm: 'token', rate: 2, windowMs: 1000, burst: 20, aligned: true }),
    ).toEqual({ quota: 20, w: 10 });
  });

  it("five clients without a store that share a window of 4 a second: a call's free 429s on its paced route do not lengthen its backoff past the retries' (seed 154)", async () => {
    // Paced 429s are not counted against `retries`, so a call reached its seventh retry and a
    // backoff ceiling of 6.4 s: the job took 8 185 ms against off's 4 862 (4 287 ms now).
    const c: Case = {
      server: {
        ...plain,
        limiter: { algorithm: 'fixed', rate: 4, windowMs: 1000, burst: 3, aligned: false },
        mount: 'prefix',
        policy: true,
        latency: { baseMs: 40, tailMs: 2405, tailRatio: 0 },
        seed: 308933697,
      },
      workload: {
        ...{ ...workload, jobs: 38, concurrency: 38, callsPerJob: 5, routes: 2, clients: 5 },
        ...{ retries: 5, timeoutMs: 1000, seed: 1297305001 },
      },
    };
    expect((await violationsOf(c, 'a-succeeds', 'b-time', 'c-requests')).violations).toEqual([]);
  });

  it('a token bucket of 2 at 104 a second that announces its policy (104;w=1) is not held a second per pair: done within 20 ms of the time off takes (seed 1829)', async () => {
    // One call at a time; every other success says none remain, reset 1.
    const c: Case = {
      server: {
        ...plain,
        limiter: { algorithm: 'token', rate: 104, windowMs: 10_000, burst: 2, aligned: true },
        mount: 'route',
        headers: 'draft-6',
        policy: true,
        latency: { baseMs: 3, tailMs: 1831, tailRatio: 0 },
        seed: 436233501,
      },
      workload: {
        ...workload,
        jobs: 13,
        concurrency: 1,
        routes: 3,
        store: true,
        deadlineMs: 5000,
        seed: 1070049118,
      },
    };
    // It took 1 027 ms against off's 39: a hold of a second per pair.
    const { violations, on, off } = await violationsOf(c, 'a-succeeds', 'b-time', 'c-requests');
    expect(violations).toEqual([]);
    expect(on.completionMs).toBeLessThanOrEqual(off.completionMs + 20);
  });

  it('an outage of half a second: a call with no deadline waits for the break its retries would have spanned, and none fails that off did (seed 1440)', async () => {
    // Refused connections for 500 ms, then 1 % of bare 429s; two processes sharing a store, one
    // call at a time. A call that met the open breaker failed at once with ERR_CIRCUIT_OPEN
    // (0 of 10 jobs done, against 8 off); its retries, with load control off, outlast the outage.
    const c: Case = {
      server: {
        ...plain,
        noise: { ratio: 0.01, status: 429 },
        outage: { kind: 'refused', atMs: 0, forMs: 500 },
        latency: { baseMs: 1, tailMs: 100, tailRatio: 0.01 },
        seed: 0,
      },
      workload: {
        ...{ jobs: 10, callsPerJob: 1, routes: 1, ids: false, clients: 2, store: true },
        ...{ retries: 3, seed: 0, concurrency: 1 },
      },
    };
    const { violations, on, off } = await violationsOf(c, 'a-succeeds', 'c-requests');
    expect(violations).toEqual([]);
    expect(on.jobsOk).toBeGreaterThanOrEqual(off.jobsOk);
  });

  it('an outage of half a second, one worker taking ten jobs of one call with 2 retries: a call whose retries end before the break waits as long as they could take, and the worker does not drain its jobs into the outage (seed 1040)', async () => {
    // Refused connections for 500 ms. Each call's retries could take 300 ms (100 + 200), less
    // than the break: a call failed at once with ERR_CIRCUIT_OPEN, the worker took the next job
    // at once, and every job was spent inside the outage (0 of 10 done, against 6 off).
    const c: Case = {
      server: {
        ...plain,
        outage: { kind: 'refused', atMs: 0, forMs: 500 },
        latency: { baseMs: 1, tailMs: 100, tailRatio: 0.01 },
        seed: 0,
      },
      workload: {
        ...{ jobs: 10, callsPerJob: 1, routes: 1, ids: false, clients: 1, store: false },
        ...{ retries: 2, seed: 0, concurrency: 1 },
      },
    };
    const { violations, on, off } = await violationsOf(c, 'a-succeeds', 'c-requests');
    expect(violations).toEqual([]);
    expect(on.jobsOk).toBeGreaterThanOrEqual(off.jobsOk);
    expect(on.requests).toBeLessThanOrEqual(off.requests);
  });
});

describe('never worse than off: the CI slice (issue 21)', () => {
  // Seeded, so every run checks the same cases; a failure prints its seed and the shrunk case.
  // The classes that the search still finds violations in (`openClassOf`) are the long run's,
  // counted apart in BENCHMARKS.md; invariant (b), time, is the long run's too (see there).
  it('200 generated cases: every call that succeeds with load control off succeeds with it on, no more requests reach the server, and no attempt is sent before a Retry-After asked', async () => {
    await fc.assert(
      fc.asyncProperty(caseArbitrary(30), async (c) => {
        fc.pre(openClassOf(c) === undefined);
        const { violations } = await runCase(c);
        expect(violations.filter((v) => v.invariant !== 'b-time')).toEqual([]);
      }),
      { seed: 2121, numRuns: 200, maxSkipsPerRun: 20 },
    );
  }, 120_000);
});
