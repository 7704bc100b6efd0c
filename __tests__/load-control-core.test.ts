import { createLoadControl, type Pass, type Verdict } from '../src/load-control';
import { DEFAULT_CIRCUIT_BREAKER, DEFAULT_PACING } from '../src/options';

const O = 'http://api.test';
const breaker = { ...DEFAULT_CIRCUIT_BREAKER, minimumThroughput: 4 };

function control(options: { pacing?: boolean; circuitBreaker?: boolean } = {}) {
  return createLoadControl({
    circuitBreaker: options.circuitBreaker === false ? false : breaker,
    pacing: options.pacing === false ? false : DEFAULT_PACING,
    random: () => 1,
  });
}

function passOf(verdict: Verdict): { pass: Pass; at: number } {
  if (!verdict.pass) throw new Error(`not let through: ${JSON.stringify(verdict)}`);
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
    expect(probe.pass?.probe).toBe(true);
    expect(passOf(probe).at).toBe(1700);
  });

  it('tells an attempt that waited for its slot not to go once the breaker has opened', () => {
    const c = control();
    attempt(c, 0, false);
    attempt(c, 0, true, 429);
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
    expect(passOf(c.admit(O, 20, Infinity)).at).toBe(30); // 10 per 100 ms
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

  it('keeps the state of at most MAX_ORIGINS origins', () => {
    const c = control();
    for (let i = 0; i < 4; i++) attempt(c, 0, true);
    expect(c.admit(O, 0, Infinity)).toEqual({ until: 500 });
    for (let i = 0; i < 100; i++) c.admit(`http://o${i}.test`, 0, Infinity);
    // The dead origin was the least recently used: forgotten, it starts afresh, closed.
    expect(passOf(c.admit(O, 0, Infinity)).at).toBe(0);
  });
});
