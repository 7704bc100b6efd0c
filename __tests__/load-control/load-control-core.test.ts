import type { RateLimit } from '../../src/http/rate-limit-headers';
import {
  createLoadControl,
  type Ending,
  type LoadControlSettings,
  MAX_SCOPES,
  type Pass,
  type Scope,
  type Verdict,
} from '../../src/load-control/load-control';
import { DEFAULT_CIRCUIT_BREAKER, DEFAULT_PACING } from '../../src/options/options';

const O = 'http://api.test';
const ROUTE = 'items';
const breaker = { ...DEFAULT_CIRCUIT_BREAKER, minimumThroughput: 4 };

/** An attempt's end in the words of these tests: failed or not, and what the response said. */
interface Told {
  failed: boolean | undefined;
  status?: number;
  waitMs?: number;
  rateLimit?: RateLimit;
}

/** A failure with no status is a fault of the connection (the origin's); a 429 is a throttle. */
function endingOf(told: Told, now: number): Ending {
  const { failed, status } = told;
  const throttled = status === 429 || (status === 503 && told.waitMs !== undefined);
  return {
    ...told,
    result:
      failed === undefined ? undefined : throttled ? 'throttled' : failed ? 'failure' : 'success',
    originWide: failed === true && status === undefined,
    sentAt: now,
  };
}

type OldVerdict = { pass: Pass; at: number; probe: boolean } | { until: number } | { late: true };

/** Load control with the route fixed, spoken to in the shape these tests were written in. */
function control(
  options: { pacing?: boolean; circuitBreaker?: boolean } = {},
  overrides: Partial<LoadControlSettings> = {},
) {
  const c = createLoadControl({
    circuitBreaker: options.circuitBreaker === false ? false : breaker,
    pacing: options.pacing === false ? false : DEFAULT_PACING,
    random: () => 1,
    probeEveryMs: 60_000,
    ...overrides,
  });
  const seen = new Set<Scope>();
  const old = (v: Verdict): OldVerdict => {
    if (v.kind === 'wait') {
      seen.add(v.scope);
      return { until: v.until };
    }
    if (v.kind === 'late') return { late: true };
    seen.add(v.pass.origin);
    if (v.pass.route) seen.add(v.pass.route);
    return { pass: v.pass, at: v.at, probe: !!v.pass.probes?.length };
  };
  return {
    admit: (origin: string, now: number, latest: number) =>
      old(c.admit([origin, ROUTE], now, latest)),
    settle: (pass: Pass, now: number, told: Told) => c.settle(pass, now, endingOf(told, now)),
    observe: (origin: string, now: number, told: Told) =>
      c.observe([origin, ROUTE], now, endingOf(told, now)),
    mayStillGo: (pass: Pass) => c.isStillAdmitted(pass),
    retryIsFree: (origin: string, now: number) => c.standing([origin, ROUTE], now).retryIsFree,
    /** Subscribes to every scope seen so far (the gate subscribes to those of its verdict). */
    onChange: (_origin: string, startedAt: number, wake: () => void, forSlot = false) => {
      const offs = [...seen].map((scope) => c.waiters(scope, forSlot).enqueue(startedAt, wake));
      return () => {
        for (const off of offs) off();
      };
    },
  };
}

function passOf(verdict: OldVerdict): { pass: Pass; at: number; probe: boolean } {
  if (!('pass' in verdict)) throw new Error(`not let through: ${JSON.stringify(verdict)}`);
  return verdict;
}

/** Sends one attempt at `now` and settles it at once. */
function attempt(c: ReturnType<typeof control>, now: number, failed: boolean, status?: number) {
  c.settle(passOf(c.admit(O, now, Infinity)).pass, now, { failed, status });
}

describe('createLoadControl', () => {
  it('lets everything through at once while healthy', () => {
    const c = control();
    for (let i = 0; i < 5; i++) expect(passOf(c.admit(O, 0, Infinity)).at).toBe(0);
  });

  it('opens the breaker of a dead origin, and only its own', () => {
    const c = control();
    for (let i = 0; i < 4; i++) attempt(c, 0, true, 503);
    expect(c.admit(O, 0, Infinity)).toEqual({ until: 500 });
    expect(passOf(c.admit('http://other.test', 0, Infinity)).at).toBe(0);
  });

  it('lets the probe go at once, however far ahead the pacing slots are', () => {
    const c = control();
    attempt(c, 0, false);
    attempt(c, 0, true, 429); // paced at 10 per second (1 success over 100 ms)
    for (let i = 0; i < 20; i++) c.admit(O, 0, Infinity); // reserve two seconds of slots
    for (let i = 0; i < 4; i++)
      c.settle(passOf(c.admit(O, 1200, Infinity)).pass, 1200, { failed: true });
    const probe = c.admit(O, 1700, Infinity); // the break is over, the slots are not
    expect(passOf(probe).probe).toBe(true);
    expect(passOf(probe).at).toBe(1700);
  });

  it('gives the probe to a call that still has time, not to one past its deadline', () => {
    const c = control({ pacing: false });
    for (let i = 0; i < 4; i++) attempt(c, 0, true);
    expect(c.admit(O, 600, 500)).toEqual({ late: true });
    expect(passOf(c.admit(O, 600, Infinity)).probe).toBe(true);
  });

  it('tells an attempt that waited for its slot not to go once the breaker has opened', () => {
    const c = control();
    attempt(c, 0, false);
    for (let i = 0; i < 6; i++) attempt(c, 0, true, 429); // a burst mostly refused
    const later = passOf(c.admit(O, 0, Infinity));
    const waiting = passOf(c.admit(O, 0, Infinity));
    expect(waiting.at).toBeGreaterThan(0);
    expect(c.mayStillGo(waiting.pass)).toBe(true);
    c.settle(later.pass, 1200, { failed: true });
    for (let i = 0; i < 3; i++) attempt(c, 1200, true);
    expect(c.mayStillGo(waiting.pass)).toBe(false);
  });

  it('does not pace the 503s of an origin that stopped succeeding: that is the breaker case', () => {
    const c = control({ circuitBreaker: false });
    for (let i = 0; i < 5; i++) attempt(c, 0, false);
    // 200 ms later every attempt fails: failures outnumber successes, but nothing succeeds now.
    for (let i = 0; i < 10; i++) attempt(c, 200, true, 503);
    expect(passOf(c.admit(O, 200, Infinity)).at).toBe(200);
    expect(passOf(c.admit(O, 200, Infinity)).at).toBe(200);
  });

  it('paces the 503s of an overloaded origin that still serves some', () => {
    const c = control({ circuitBreaker: false });
    // A herd: 30 sent at once, 10 served, 20 answered 503.
    const herd = Array.from({ length: 30 }, () => passOf(c.admit(O, 0, Infinity)).pass);
    for (const [i, pass] of herd.entries()) {
      c.settle(pass, 20, { failed: i >= 10, status: i >= 10 ? 503 : 200 });
    }
    expect(passOf(c.admit(O, 20, Infinity)).at).toBe(20);
    expect(passOf(c.admit(O, 20, Infinity)).at).toBeCloseTo(30, 0); // 10 per 100 ms, ramping
  });

  it('does not take half the first attempts failing at random for an overload', () => {
    const c = control({ circuitBreaker: false });
    const first = Array.from({ length: 40 }, () => passOf(c.admit(O, 0, Infinity)).pass);
    for (const [i, pass] of first.entries()) {
      c.settle(pass, 20, { failed: i >= 20, status: i >= 20 ? 503 : 200 });
    }
    expect(passOf(c.admit(O, 20, Infinity)).at).toBe(20);
    expect(passOf(c.admit(O, 20, Infinity)).at).toBe(20);
  });

  it('lets the calls waiting for slots go at once when pacing stops helping', () => {
    const c = control({ circuitBreaker: false });
    const herd = Array.from({ length: 30 }, () => passOf(c.admit(O, 0, Infinity)).pass);
    for (const [i, pass] of herd.entries()) {
      c.settle(pass, 20, { failed: i >= 10, status: i >= 10 ? 503 : 200 });
    }
    const woken: string[] = [];
    c.onChange(O, 5, () => woken.push('slot'), true);
    c.onChange(O, 5, () => woken.push('breaker'));
    // More than a window of pacing later, two in three still fail: not the rate. Pacing stops.
    for (let i = 0; i < 40; i++) {
      const { pass } = passOf(c.admit(O, 1300, Infinity));
      c.settle(pass, 1300, { failed: i % 3 !== 0, status: i % 3 !== 0 ? 503 : 200 });
    }
    expect(woken).toEqual(['slot']);
  });

  it('spreads the release after the breaker closes, with pacing off too', () => {
    const c = control({ pacing: false });
    for (let i = 0; i < 20; i++) attempt(c, i * 10, false); // 20 per 200 ms: 100 per second
    attempt(c, 200, true); // the first failure: the last good rate is measured
    for (let i = 0; i < 4; i++) attempt(c, 1500, true); // the successes have left: it opens
    const probe = passOf(c.admit(O, 2000, Infinity));
    c.settle(probe.pass, 2000, { failed: false });
    const slots = Array.from({ length: 5 }, () => passOf(c.admit(O, 2000, Infinity)).at);
    expect(slots[0]).toBe(2000);
    expect(slots[4]).toBeGreaterThan(2030); // 10 ms apart at first, not all at once
  });

  it('counts a retry as free of the budget while the origin mostly succeeds', () => {
    const c = control({ circuitBreaker: false });
    attempt(c, 0, false);
    attempt(c, 0, false);
    attempt(c, 0, true, 500);
    expect(c.retryIsFree(O, 0)).toBe(true);
    attempt(c, 0, true, 500);
    expect(c.retryIsFree(O, 0)).toBe(false);
    expect(c.retryIsFree('http://never.test', 0)).toBe(false);
  });

  it('never forgets an origin in trouble, however many others are used after it', () => {
    const c = control();
    for (let i = 0; i < 4; i++) attempt(c, 0, true);
    expect(c.admit(O, 0, Infinity)).toEqual({ until: 500 });
    for (let i = 0; i < 2 * MAX_SCOPES; i++) {
      const other = `http://o${i}.test`;
      c.settle(passOf(c.admit(other, 0, Infinity)).pass, 0, { failed: false });
    }
    expect(c.admit(O, 0, Infinity)).toEqual({ until: 500 });
  });
});

describe('createLoadControl: throttle signals', () => {
  it('holds the origin until the reset when a 2xx says the quota is spent', () => {
    const c = control({ circuitBreaker: false });
    const { pass } = passOf(c.admit(O, 0, Infinity));
    c.settle(pass, 0, { failed: false, status: 200, rateLimit: { remaining: 0, resetMs: 3000 } });
    expect(passOf(c.admit(O, 0, Infinity)).at).toBe(3000);
  });

  it('does not hold when a 2xx says the quota is spent with a reset of two seconds and no period: a bucket says as much', () => {
    const c = control({ circuitBreaker: false });
    const { pass } = passOf(c.admit(O, 0, Infinity));
    c.settle(pass, 0, { failed: false, status: 200, rateLimit: { remaining: 0, resetMs: 2000 } });
    expect(passOf(c.admit(O, 0, Infinity)).at).toBe(0);
  });

  it('counts the requests still in flight against what is left of the quota', () => {
    const c = control({ circuitBreaker: false });
    const passes = Array.from({ length: 3 }, () => passOf(c.admit(O, 0, Infinity)).pass);
    // Two still in flight will spend the two left: stop before the server says 429.
    c.settle(passes[0] as Pass, 0, {
      failed: false,
      status: 200,
      rateLimit: { remaining: 2, resetMs: 3000 },
    });
    expect(passOf(c.admit(O, 0, Infinity)).at).toBe(3000);
  });

  it('does not throttle while more is left than the requests in flight', () => {
    const c = control({ circuitBreaker: false });
    const { pass } = passOf(c.admit(O, 0, Infinity));
    c.settle(pass, 0, { failed: false, status: 200, rateLimit: { remaining: 1, resetMs: 2000 } });
    expect(passOf(c.admit(O, 0, Infinity)).at).toBe(0);
  });

  /** Paces the origin: a 429 after 10 successes, then two sends past its one-second wait. */
  function paced(c: ReturnType<typeof control>): void {
    for (let i = 0; i < 10; i++) attempt(c, 0, false);
    const { pass } = passOf(c.admit(O, 0, Infinity));
    c.settle(pass, 0, { failed: true, status: 429, waitMs: 1000 });
    const [first, second] = [1000, 1000].map((now) => passOf(c.admit(O, now, Infinity)));
    expect(second?.at).toBeGreaterThan(1000); // paced
    for (const sent of [first, second]) c.settle(sent!.pass, 1500, { failed: false });
  }

  // Issue 21: a token bucket that announced "2 per 10 s" paced a job at that for 2 s where off
  // took 39 ms, while each paced success said a token was left (seed 1829).
  it('ends the pace when a success sent after it says quota is left beyond the requests in flight', () => {
    const c = control({ circuitBreaker: false });
    paced(c);
    const { pass } = passOf(c.admit(O, 2000, Infinity));
    c.settle(pass, 2000, { failed: false, status: 200, rateLimit: { remaining: 1, limit: 2 } });
    expect(passOf(c.admit(O, 2000, Infinity)).at).toBe(2000);
    expect(passOf(c.admit(O, 2000, Infinity)).at).toBe(2000);
  });

  it('keeps the pace when nothing is left beyond the requests in flight', () => {
    const c = control({ circuitBreaker: false });
    paced(c);
    const passes = [0, 1].map(() => passOf(c.admit(O, 3000, Infinity)).pass);
    // One left, and one more still in flight to spend it.
    c.settle(passes[0] as Pass, 3000, {
      failed: false,
      status: 200,
      rateLimit: { remaining: 1 },
    });
    expect(passOf(c.admit(O, 3000, Infinity)).at).toBeGreaterThan(3000);
  });

  it('keeps the pace while others are seen to spend the quota (more spent than this client used)', () => {
    const c = control({ circuitBreaker: false });
    paced(c);
    const others = passOf(c.admit(O, 2000, Infinity)).pass;
    // 50 of the quota spent, where this client sent a dozen: other clients share it.
    c.settle(others, 2000, { failed: false, status: 200, rateLimit: { remaining: 0, limit: 50 } });
    // A window later, 49 left: each client's share looks slow at every window's start.
    const { pass } = passOf(c.admit(O, 3000, Infinity));
    c.settle(pass, 3000, { failed: false, status: 200, rateLimit: { remaining: 49, limit: 50 } });
    expect(passOf(c.admit(O, 3000, Infinity)).at).toBeGreaterThan(3000);
  });

  it('a 429 that says the quota is spent with no reset is one with no wait: held a second after the burst', () => {
    const c = control({ circuitBreaker: false });
    const { pass } = passOf(c.admit(O, 0, Infinity));
    c.settle(pass, 0, { failed: true, status: 429, rateLimit: { remaining: 0 } });
    // With no rate known, the release is spread over a tenth of the hold past its end.
    const { at } = passOf(c.admit(O, 0, Infinity));
    expect(at).toBeGreaterThanOrEqual(1000);
    expect(at).toBeLessThanOrEqual(1100);
  });

  it("a 429 waits for the server's wait, not for the quota's reset", () => {
    const c = control({ circuitBreaker: false });
    attempt(c, 0, false); // a rate is known: released at it, not spread over a second
    const { pass } = passOf(c.admit(O, 0, Infinity));
    c.settle(pass, 0, {
      failed: true,
      status: 429,
      waitMs: 3000,
      rateLimit: { remaining: 5, resetMs: 60_000 },
    });
    expect(passOf(c.admit(O, 0, Infinity)).at).toBe(3000);
  });

  it('takes a 503 with a wait for a 429', () => {
    const c = control({ circuitBreaker: false });
    attempt(c, 0, false);
    const { pass } = passOf(c.admit(O, 0, Infinity));
    c.settle(pass, 0, { failed: true, status: 503, waitMs: 1500 });
    expect(passOf(c.admit(O, 0, Infinity)).at).toBe(1500);
  });

  it('counts the first attempts the interceptor observes as in flight until they settle', () => {
    const c = control({ circuitBreaker: false });
    c.observe(O, 0, { failed: true, status: 500 });
    const { pass } = passOf(c.admit(O, 0, Infinity));
    c.settle(pass, 0, { failed: false, status: 200, rateLimit: { remaining: 0, resetMs: 3000 } });
    expect(passOf(c.admit(O, 0, Infinity)).at).toBe(3000);
  });

  /** Settles `successes` then `failures` (with `status`), all sent at 0, at the times given. */
  function herd(
    c: ReturnType<typeof control>,
    successes: number,
    successAt: number,
    failures: number,
    failureAt: number,
    status = 503,
  ) {
    const passes = Array.from(
      { length: successes + failures },
      () => passOf(c.admit(O, 0, Infinity)).pass,
    );
    for (const [i, pass] of passes.entries()) {
      if (i < successes) c.settle(pass, successAt, { failed: false, status: 200 });
      else c.settle(pass, failureAt, { failed: true, status });
    }
  }

  it('paces an overload once the last second holds 20 attempts', () => {
    const c = control({ circuitBreaker: false });
    herd(c, 6, 20, 14, 20);
    expect(passOf(c.admit(O, 20, Infinity)).at).toBe(20);
    expect(passOf(c.admit(O, 20, Infinity)).at).toBeGreaterThan(20);
  });

  it('does not take a few 503s for an overload: 20 attempts at least', () => {
    const c = control({ circuitBreaker: false });
    herd(c, 6, 20, 13, 20); // 19 attempts, two in three failed
    expect(passOf(c.admit(O, 20, Infinity)).at).toBe(20);
    expect(passOf(c.admit(O, 20, Infinity)).at).toBe(20);
  });

  it('takes an origin whose last success was 100 ms ago as still serving, not 200 ms ago', () => {
    const serving = control({ circuitBreaker: false });
    herd(serving, 10, 0, 20, 100);
    passOf(serving.admit(O, 100, Infinity));
    expect(passOf(serving.admit(O, 100, Infinity)).at).toBeGreaterThan(100);

    const stopped = control({ circuitBreaker: false });
    herd(stopped, 10, 0, 20, 200);
    expect(passOf(stopped.admit(O, 200, Infinity)).at).toBe(200);
    expect(passOf(stopped.admit(O, 200, Infinity)).at).toBe(200);
  });

  it('does not pace other statuses that fail like an overload (a 500 is not a throttle)', () => {
    const c = control({ circuitBreaker: false });
    herd(c, 10, 20, 20, 20, 500);
    expect(passOf(c.admit(O, 20, Infinity)).at).toBe(20);
    expect(passOf(c.admit(O, 20, Infinity)).at).toBe(20);
  });

  it('says late when the pacer has no slot before the latest time', () => {
    const c = control();
    attempt(c, 0, false);
    // A 429 with a wait: held for it.
    c.settle(passOf(c.admit(O, 0, Infinity)).pass, 0, { failed: true, status: 429, waitMs: 1000 });
    expect(c.admit(O, 0, 500)).toEqual({ late: true });
  });
});

describe('createLoadControl: breaker and waiters', () => {
  it('does not count canceled attempts for the breaker', () => {
    const c = control();
    for (let i = 0; i < 4; i++) {
      c.settle(passOf(c.admit(O, 0, Infinity)).pass, 0, { failed: undefined });
      attempt(c, 0, true);
    }
    expect(c.admit(O, 0, Infinity)).toEqual({ until: 500 });
  });

  it("makes a call the probe of both breakers when the origin's and the route's breaks end together", () => {
    const c = control({ pacing: false });
    for (let i = 0; i < 4; i++) attempt(c, 0, true, 503); // the route's breaker opens (500 ms)
    for (let i = 0; i < 4; i++) c.observe(O, 0, { failed: true }); // the origin's, on faults
    expect(c.admit(O, 0, Infinity)).toEqual({ until: 500 });
    const probe = passOf(c.admit(O, 500, Infinity));
    expect(probe.probe).toBe(true);
    expect(probe.pass.probes).toHaveLength(2);
  });

  it("gives the origin's probe back when the route's break is not over, for the next call to take", () => {
    const c = control({ pacing: false });
    for (let i = 0; i < 4; i++) c.observe(O, 0, { failed: true }); // the origin's: to 500 ms
    for (let i = 0; i < 4; i++) c.observe(O, 100, { failed: true, status: 503 }); // the route's: to 600
    // At 550 the origin would let a probe through, but the route holds the call: the origin's
    // probe is given back, and at 600 the next call probes both (not held for a probe that never went).
    expect(c.admit(O, 550, Infinity)).toEqual({ until: 600 });
    const probe = passOf(c.admit(O, 600, Infinity));
    expect(probe.pass.probes).toHaveLength(2);
  });

  it("counts the breaker's failures over its own windowMs when it is not the pacing window", () => {
    const c = control({}, { circuitBreaker: { ...breaker, windowMs: 5000 } });
    for (let i = 0; i < 4; i++) attempt(c, i * 1500, true);
    expect(c.admit(O, 4500, Infinity)).toEqual({ until: 5000 });
  });

  it('paces nothing after the breaker closes if the origin never succeeded and nobody waited', () => {
    const c = control();
    for (let i = 0; i < 4; i++) attempt(c, 0, true);
    const probe = passOf(c.admit(O, 500, Infinity));
    c.settle(probe.pass, 500, { failed: false });
    const slots = Array.from({ length: 3 }, () => passOf(c.admit(O, 500, Infinity)).at);
    expect(slots).toEqual([500, 500, 500]);
  });

  // Issue 21 (seed 183 of the search): a spread is no rate the origin was seen to take. Capped at
  // twice it for healthyAfterMs, the four calls of a closed loop went at 8 a second for 5 s.
  it('spreads the calls that waited over a second when the origin never succeeded, and paces nothing after that second', () => {
    const c = control();
    for (let i = 0; i < 4; i++) attempt(c, 0, true);
    for (let i = 0; i < 4; i++) c.onChange(O, i, () => undefined);
    c.settle(passOf(c.admit(O, 500, Infinity)).pass, 500, { failed: false });
    // Four waited: the first goes at once, the next a quarter second later (4 a second).
    const spread = Array.from({ length: 2 }, () => passOf(c.admit(O, 500, Infinity)).at);
    expect(spread[0]).toBe(500);
    expect(spread[1]).toBeCloseTo(750, -1);
    const after = Array.from({ length: 3 }, () => passOf(c.admit(O, 1500, Infinity)).at);
    expect(after).toEqual([1500, 1500, 1500]);
  });

  // A scope that succeeded here before, with no rate measured (its successes had left the window
  // when it failed; in a fleet, a client that learnt of the open through the store), keeps the
  // spread paced for healthyAfterMs: it is the real fleet's failover that the short release hurt.
  it('keeps the spread paced past its second when the origin succeeded here before', () => {
    const c = control();
    attempt(c, 0, false);
    for (let i = 0; i < 4; i++) attempt(c, 10_000, true);
    for (let i = 0; i < 4; i++) c.onChange(O, i, () => undefined);
    c.settle(passOf(c.admit(O, 10_500, Infinity)).pass, 10_500, { failed: false });
    for (let i = 0; i < 2; i++) passOf(c.admit(O, 10_500, Infinity));
    const after = Array.from({ length: 3 }, () => passOf(c.admit(O, 11_500, Infinity)).at);
    expect(after[2]).toBeGreaterThan(11_500);
  });

  it('releases at the last good rate measured at the first failure', () => {
    const c = control({ pacing: false });
    for (let i = 0; i < 20; i++) attempt(c, i * 10, false); // 100 per second
    attempt(c, 200, true);
    for (let i = 0; i < 4; i++) attempt(c, 1500, true);
    c.settle(passOf(c.admit(O, 2000, Infinity)).pass, 2000, { failed: false });
    const slots = Array.from({ length: 2 }, () => passOf(c.admit(O, 2000, Infinity)).at);
    expect(slots).toEqual([2000, 2010]);
    // A rate the origin took is paced past the first second, until healthyAfterMs.
    const later = Array.from({ length: 2 }, () => passOf(c.admit(O, 3000, Infinity)).at);
    expect((later[1] as number) - (later[0] as number)).toBe(5); // twice the rate
  });

  it('wakes the calls waiting for the breaker only when a probe settles, oldest first', () => {
    const c = control();
    for (let i = 0; i < 4; i++) attempt(c, 0, true);
    const woken: string[] = [];
    const offA = c.onChange(O, 30, () => woken.push('a'));
    c.onChange(O, 10, () => woken.push('b'));
    c.onChange(O, 20, () => woken.push('c'));
    offA();
    offA(); // unsubscribing twice removes nobody else
    // An attempt sent before the breaker opened settles: nothing changed for the waiters.
    c.observe(O, 100, { failed: true });
    expect(woken).toEqual([]);
    c.settle(passOf(c.admit(O, 500, Infinity)).pass, 500, { failed: false });
    expect(woken).toEqual(['b', 'c']);
  });

  it('lets the first waiter unsubscribe', () => {
    const c = control();
    for (let i = 0; i < 4; i++) attempt(c, 0, true);
    const woken: string[] = [];
    const off = c.onChange(O, 10, () => woken.push('a'));
    c.onChange(O, 20, () => woken.push('b'));
    off();
    c.settle(passOf(c.admit(O, 500, Infinity)).pass, 500, { failed: false });
    expect(woken).toEqual(['b']);
  });

  it('wakes the calls waiting for slots when the rate is cut, oldest first, to plan them again', () => {
    const c = control({ circuitBreaker: false });
    for (let i = 0; i < 10; i++) attempt(c, 0, false);
    c.settle(passOf(c.admit(O, 0, Infinity)).pass, 0, { failed: true, status: 429, waitMs: 1000 });
    const slot = () => passOf(c.admit(O, 2900, Infinity)).pass; // paced at 10 a second
    for (let i = 0; i < 5; i++) c.settle(slot(), 2950, { failed: false });
    const woken: string[] = [];
    c.onChange(O, 30, () => woken.push('younger'), true);
    c.onChange(O, 10, () => woken.push('older'), true);
    const waiting = slot();
    expect(woken).toEqual([]); // successes decide nothing
    expect(c.mayStillGo(waiting)).toBe(true);
    c.settle(slot(), 3000, { failed: true, status: 429, waitMs: 1000 }); // sent while paced: a cut
    expect(woken).toEqual(['older', 'younger']);
    // Its slot was spaced for the old rate: the woken call goes back to the gate.
    expect(c.mayStillGo(waiting)).toBe(false);
  });

  it('plans a slot reserved in a hold again once a rate is decided, not only at a cut', () => {
    const c = control({ circuitBreaker: false });
    c.settle(passOf(c.admit(O, 0, Infinity)).pass, 0, { failed: true, status: 429, waitMs: 1000 });
    const held = passOf(c.admit(O, 10, Infinity)); // no rate known: spread past the hold
    expect(held.at).toBeGreaterThanOrEqual(1000);
    const woken: string[] = [];
    c.onChange(O, 10, () => woken.push('held'), true);
    for (let i = 0; i < 10; i++) c.observe(O, 20, { failed: false });
    expect(c.mayStillGo(held.pass)).toBe(true);
    c.observe(O, 30, { failed: true, status: 429, waitMs: 1000 }); // a first rate: no cut
    expect(c.mayStillGo(held.pass)).toBe(false);
    // Not woken (`if (… || s.cuts !== was.cuts)` → `if (true)`): its slot, past the hold, comes
    // after any the new rate plans, and it is planned again then.
    expect(woken).toEqual([]);
  });

  it('does not wake the calls waiting for slots for old news while paced (no cut)', () => {
    // `was.base && !s.base` → `was.base || !s.base`.
    const c = control({ circuitBreaker: false });
    for (let i = 0; i < 10; i++) attempt(c, 0, false);
    c.settle(passOf(c.admit(O, 0, Infinity)).pass, 0, { failed: true, status: 429, waitMs: 1000 });
    const woken: string[] = [];
    c.onChange(O, 0, () => woken.push('slot'), true);
    const late = passOf(c.admit(O, 100, Infinity)).pass;
    c.settle(late, 100, { failed: true, status: 429, waitMs: 1000 }); // within half the period
    const next = passOf(c.admit(O, 1000, Infinity));
    expect(next.at).toBeGreaterThan(1000); // still paced
    expect(woken).toEqual([]);
  });

  it('forgets idle origins past MAX_SCOPES, the least recently used first', () => {
    const c = control();
    const touch = (origin: string) =>
      c.settle(passOf(c.admit(origin, 0, Infinity)).pass, 0, { failed: false });
    touch(O);
    touch('http://kept.test');
    expect(c.retryIsFree(O, 0)).toBe(true); // it mostly succeeds: known
    // Each origin takes two scopes (itself and its route).
    for (let i = 0; i < MAX_SCOPES / 2 - 1; i++) {
      touch(`http://o${i}.test`);
      if (i === 10) touch('http://kept.test'); // used again: recent
    }
    expect(c.retryIsFree(O, 0)).toBe(false); // forgotten
    expect(c.retryIsFree('http://kept.test', 0)).toBe(true);
  });

  it('keeps an origin with an attempt in flight past MAX_SCOPES, however long ago it was used', () => {
    // `scope.inFlight + … > 0 ||` → `false ||`.
    const c = control();
    const touch = (origin: string) =>
      c.settle(passOf(c.admit(origin, 0, Infinity)).pass, 0, { failed: false });
    touch(O);
    const inFlight = passOf(c.admit(O, 0, Infinity)).pass; // sent, not answered yet
    for (let i = 0; i < MAX_SCOPES / 2; i++) touch(`http://o${i}.test`);
    c.settle(inFlight, 0, { failed: false });
    expect(c.retryIsFree(O, 0)).toBe(true); // still known: its successes are counted
  });
});
