import type { OutcomeCounts } from '../../src/load-control/outcome-window';
import { throttleSignal } from '../../src/load-control/throttle-signal';

const counts = (successes: number, failures = 0, throttled = 0): OutcomeCounts => ({
  successes,
  failures,
  throttled,
  spanMs: 1000,
});
const scope = (c = counts(10), inFlight = 0) => ({ counts: c, inFlight, lastSuccessAt: 0 });

describe('throttleSignal: a spent quota', () => {
  it('holds a quota of a minute to its reset', () => {
    const rateLimit = { remaining: 0, resetMs: 30_000 };
    expect(throttleSignal({ status: 200, rateLimit, sentAt: 0 }, scope(), 0)).toEqual({
      kind: 'quota',
      waitMs: 30_000,
      sentAt: 0,
    });
    const rounded = { remaining: 0, resetMs: 3000 };
    expect(throttleSignal({ status: 200, rateLimit: rounded, sentAt: 0 }, scope(), 0)).toEqual({
      kind: 'quota',
      waitMs: 3000,
      sentAt: 0,
    });
  });

  it('holds nothing for a quota that resets within two seconds: a token or leaky bucket says so after each request (issue 21)', () => {
    // A reset in whole seconds, rounded up, of 1 is anything up to a second (2, against a Date
    // truncated to the second); a bucket that refills in milliseconds says it of every request
    // that took its last token. The next attempt finds out: a 429 and its Retry-After hold the
    // call that gets them.
    const rateLimit = { remaining: 0, resetMs: 1000 };
    expect(throttleSignal({ status: 200, rateLimit, sentAt: 0 }, scope(), 0)).toBeUndefined();
    const truncated = { remaining: 0, resetMs: 2000 };
    expect(
      throttleSignal({ status: 200, rateLimit: truncated, sentAt: 0 }, scope(), 0),
    ).toBeUndefined();
    expect(throttleSignal({ status: 429, waitMs: 1000, rateLimit, sentAt: 0 }, scope(), 0)).toEqual(
      { kind: 'limit', waitMs: 1000, sentAt: 0 },
    );
  });

  it('counts the requests in flight against what is left, and holds with no reset said', () => {
    const rateLimit = { remaining: 2 };
    expect(throttleSignal({ status: 200, rateLimit, sentAt: 0 }, scope(counts(10), 2), 0)).toEqual({
      kind: 'quota',
      waitMs: undefined,
      sentAt: 0,
    });
    expect(throttleSignal({ status: 200, rateLimit, sentAt: 0 }, scope(counts(10), 1), 0)).toBe(
      undefined,
    );
  });
});

describe('throttleSignal: statuses', () => {
  it('takes a 429, and a 503 with a wait, for a limit; a 500 for nothing', () => {
    expect(throttleSignal({ status: 429, sentAt: 5 }, scope(), 5)?.kind).toBe('limit');
    expect(throttleSignal({ status: 503, waitMs: 1000, sentAt: 5 }, scope(), 5)?.kind).toBe(
      'limit',
    );
    expect(throttleSignal({ status: 500, sentAt: 5 }, scope(counts(5, 30)), 5)).toBeUndefined();
  });

  it('takes a 503 with no wait for an overload only over 20 attempts, two in three failed, still serving', () => {
    const serving = { counts: counts(6, 14), inFlight: 0, lastSuccessAt: 0 };
    expect(throttleSignal({ status: 503, sentAt: 0 }, serving, 50)?.kind).toBe('overload');
    expect(throttleSignal({ status: 503, sentAt: 0 }, serving, 150)).toBeUndefined(); // stopped
    const few = { counts: counts(6, 13), inFlight: 0, lastSuccessAt: 0 };
    expect(throttleSignal({ status: 503, sentAt: 0 }, few, 50)).toBeUndefined();
  });
});
