import type { RequestRetryOptions, RetryState } from '../../src/contract/types';
import type { Classification } from '../../src/http/classify';
import { createRetryBudget } from '../../src/retry/budget';
import { decide, type OutcomeToDecide } from '../../src/retry/policy';
import { NOW, options, outcome, state } from '../helpers/decide-fixtures';

const reset: Classification = { kind: 'transient', neverSent: false };
const refused: Classification = { kind: 'transient', neverSent: true };

describe('decide: what is retried', () => {
  it.each<[string, Partial<OutcomeToDecide>, boolean]>([
    ['a GET answered 503', {}, true],
    ['a GET answered 408', { status: 408 }, true],
    ['a GET answered 429', { status: 429 }, true],
    ['a GET answered 500', { status: 500 }, true],
    ['a GET answered 501 (not in statusCodes)', { status: 501 }, false],
    ['a GET answered 404', { status: 404 }, false],
    ['a GET answered 400', { status: 400 }, false],
    ['a PUT answered 503', { method: 'PUT' }, true],
    ['a POST answered 503, without a key', { method: 'POST' }, false],
    ['a POST answered 503, with a key', { method: 'POST', hasIdempotencyKey: true }, true],
    [
      'a PATCH reset mid-request, without a key',
      { method: 'PATCH', classification: reset, status: undefined },
      false,
    ],
    [
      'a PATCH reset mid-request, with a key',
      { method: 'PATCH', classification: reset, status: undefined, hasIdempotencyKey: true },
      true,
    ],
    ['a GET reset mid-request', { classification: reset, status: undefined }, true],
    [
      'a POST whose connection was refused (never sent)',
      { method: 'POST', classification: refused, status: undefined },
      true,
    ],
    [
      'an invalid URL',
      { classification: { kind: 'permanent', neverSent: false }, status: undefined },
      false,
    ],
  ])('%s → retried: %s', (_label, overrides, retried) => {
    const decision = decide(outcome(overrides), state(), options());
    expect(decision.retry).toBe(retried);
    if (!decision.retry) expect(decision.reason).toBe('not-retryable');
  });

  it('never retries a canceled request, whatever shouldRetry says', () => {
    const decision = decide(
      outcome({
        classification: { kind: 'canceled', neverSent: false },
        status: undefined,
        verdict: () => true,
      }),
      state(),
      options(),
    );
    expect(decision).toEqual({ retry: false, reason: 'canceled' });
  });

  it('lets shouldRetry decide both ways, and fall back with undefined', () => {
    const on404 = outcome({ status: 404 });
    expect(decide({ ...on404, verdict: () => true }, state(), options()).retry).toBe(true);
    expect(decide({ ...outcome(), verdict: () => false }, state(), options())).toEqual({
      retry: false,
      reason: 'not-retryable',
    });
    expect(decide({ ...outcome(), verdict: () => undefined }, state(), options()).retry).toBe(true);
  });

  it('does not ask shouldRetry when the request is canceled', () => {
    const verdict = jest.fn(() => true);
    decide(
      outcome({ classification: { kind: 'canceled', neverSent: false }, verdict }),
      state(),
      options(),
    );
    expect(verdict).not.toHaveBeenCalled();
  });

  it.each<[string, Partial<OutcomeToDecide>, Partial<RetryState>, RequestRetryOptions, string]>([
    ['retries ran out', {}, { retryCount: 3 }, { retries: 3 }, 'retries-exhausted'],
    ['the body cannot be sent again', { replayableBody: false }, {}, {}, 'body-not-replayable'],
    ['the deadline passed', {}, { startedAt: NOW - 1000 }, { deadlineMs: 1000 }, 'deadline'],
    ['the last attempt was used', {}, { finalAttempt: true }, { deadlineMs: 1000 }, 'deadline'],
  ])(
    'does not ask shouldRetry when %s: its answer cannot change that the call stops',
    (_label, given, at, opts, reason) => {
      const verdict = jest.fn(() => false);
      const decision = decide(
        outcome({ ...given, verdict }),
        state(at),
        options({ ...opts, shouldRetry: () => false }),
      );
      expect(decision).toEqual({ retry: false, reason });
      expect(verdict).not.toHaveBeenCalled();
    },
  );

  it('still names a failure the default rule never repeats not-retryable, without shouldRetry', () => {
    expect(decide(outcome({ status: 404 }), state({ retryCount: 3 }), options())).toEqual({
      retry: false,
      reason: 'not-retryable',
    });
  });

  it('does not retry a body that cannot be sent again', () => {
    expect(decide(outcome({ replayableBody: false }), state(), options())).toEqual({
      retry: false,
      reason: 'body-not-replayable',
    });
  });

  it('stops after `retries` retries', () => {
    expect(decide(outcome(), state({ retryCount: 2 }), options({ retries: 3 })).retry).toBe(true);
    expect(decide(outcome(), state({ retryCount: 3 }), options({ retries: 3 }))).toEqual({
      retry: false,
      reason: 'retries-exhausted',
    });
    expect(decide(outcome(), state(), options({ retries: 0 }))).toEqual({
      retry: false,
      reason: 'retries-exhausted',
    });
  });
});

describe('decide: how long to wait', () => {
  it('draws full jitter over the doubling ceiling', () => {
    const delays = [0, 1, 2, 3].map((retryCount) => {
      const decision = decide(outcome(), state({ retryCount }), options({ retries: 5 }));
      return decision.retry ? decision.delayMs : undefined;
    });
    expect(delays).toEqual([50, 100, 200, 400]);
  });

  it('waits the Retry-After plus the jitter draw, never less than asked', () => {
    const decision = decide(outcome({ status: 429, serverWaitMs: 2000 }), state(), options());
    expect(decision).toEqual({ retry: true, delayMs: 2050, finalAttempt: false });
    const noJitter = decide(outcome({ serverWaitMs: 2000 }), state(), options({ random: () => 0 }));
    expect(noJitter).toEqual({ retry: true, delayMs: 2000, finalAttempt: false });
  });

  it("spreads a Retry-After wait by the first retry's ceiling, whatever the retry number", () => {
    const spreads = [0, 1, 4, 9].map((retryCount) => {
      const decision = decide(
        outcome({ status: 429, serverWaitMs: 1000 }),
        state({ retryCount }),
        options({ retries: 10, random: () => 0.999 }),
      );
      return decision.retry ? decision.delayMs - 1000 : undefined;
    });
    // baseDelayMs is 100: each spread is 0.999 × 100 ms, not 0.999 × 100 × 2ⁿ⁻¹.
    expect(spreads.map((ms) => Math.round(ms!))).toEqual([100, 100, 100, 100]);
  });

  it('keeps the spread of a Retry-After wait under a maxDelayMs given below the default baseDelayMs', () => {
    const decision = decide(
      outcome({ serverWaitMs: 1000 }),
      state({ retryCount: 5 }),
      options({ retries: 10, maxDelayMs: 40, random: () => 0.5 }),
    );
    expect(decision).toEqual({ retry: true, delayMs: 1020, finalAttempt: false });
  });

  it('waits as long as the server asked, plus the spread', () => {
    const decision = decide(outcome({ serverWaitMs: 10_000 }), state(), options());
    expect(decision).toEqual({ retry: true, delayMs: 10_050, finalAttempt: false });
  });

  it('falls back to plain backoff when the server asked for no wait it could read', () => {
    const decision = decide(outcome({ serverWaitMs: undefined }), state(), options());
    expect(decision).toEqual({ retry: true, delayMs: 50, finalAttempt: false });
  });

  it('stops at once when Retry-After asks for more than maxRetryAfterMs', () => {
    const decision = decide(outcome({ serverWaitMs: 61000 }), state(), options());
    expect(decision).toEqual({ retry: false, reason: 'retry-after-too-long' });
    const atLimit = decide(outcome({ serverWaitMs: 60000 }), state(), options());
    expect(atLimit.retry).toBe(true);
  });

  it.each([
    ['a day and a millisecond', 86_400_001],
    ['30 days', 2_592_000_000],
    ['Infinity (400 digits)', Infinity],
    ['NaN', Number.NaN],
  ])(
    'stops on a wait of %s even with maxRetryAfterMs: Infinity: never sooner than asked',
    (_, ms) => {
      const unbounded = options({ maxRetryAfterMs: Infinity });
      expect(decide(outcome({ serverWaitMs: ms }), state(), unbounded)).toEqual({
        retry: false,
        reason: 'retry-after-too-long',
      });
      // A day itself is waited.
      const day = decide(outcome({ serverWaitMs: 86_400_000 }), state(), unbounded);
      expect(day).toMatchObject({ retry: true, delayMs: 86_400_050 });
    },
  );

  it('waits for the later of a gRPC pushback and a Retry-After', () => {
    const both = (advice: number, serverWaitMs: number) =>
      decide(outcome({ advice, serverWaitMs }), state(), options());
    expect(both(0, 3000)).toMatchObject({ retry: true, delayMs: 3050 });
    expect(both(5000, 3000)).toMatchObject({ retry: true, delayMs: 5050 });
    expect(both(61_000, 0)).toEqual({ retry: false, reason: 'retry-after-too-long' });
  });
});

describe('decide: the deadline', () => {
  const withDeadline = options({ deadlineMs: 1000 });

  it('stops when the deadline has passed', () => {
    expect(decide(outcome({ decisionAt: NOW + 1000 }), state(), withDeadline)).toEqual({
      retry: false,
      reason: 'deadline',
    });
  });

  it('stops after the attempt the deadline allowed as the last one', () => {
    expect(
      decide(outcome({ decisionAt: NOW + 10 }), state({ finalAttempt: true }), withDeadline),
    ).toEqual({
      retry: false,
      reason: 'deadline',
    });
  });

  it('gives another last attempt when the last one was refused: it never reached the server', () => {
    const afterRefusal = outcome({
      classification: refused,
      status: undefined,
      decisionAt: NOW + 10,
    });
    const decision = decide(afterRefusal, state({ finalAttempt: true }), withDeadline);
    // Retry 1's draw of 50 ms fits in the 990 ms left: an ordinary retry again.
    expect(decision).toEqual({ retry: true, delayMs: 50, finalAttempt: false });
  });

  it('keeps the backoff draw when it ends before the deadline', () => {
    expect(decide(outcome({ decisionAt: NOW + 900 }), state(), withDeadline)).toEqual({
      retry: true,
      delayMs: 50,
      finalAttempt: false,
    });
  });

  it('turns a draw that would end past the deadline into one last attempt drawn over the time left', () => {
    const draws = [0.9, 0.25];
    const random = () => draws.shift() ?? 0;
    // Retry 4 has a ceiling of 800 ms: the draw of 720 ms would end past the 100 ms left.
    const decision = decide(
      outcome({ decisionAt: NOW + 900 }),
      state({ retryCount: 3 }),
      options({ retries: 5, deadlineMs: 1000, random }),
    );
    expect(decision).toEqual({ retry: true, delayMs: 25, finalAttempt: true });
  });

  it('stops at once when a Retry-After ends past the deadline', () => {
    expect(decide(outcome({ serverWaitMs: 2000 }), state(), withDeadline)).toEqual({
      retry: false,
      reason: 'deadline',
    });
  });

  it('stops when a Retry-After ends exactly at the deadline: the attempt would have no time', () => {
    expect(decide(outcome({ serverWaitMs: 1000 }), state(), withDeadline)).toEqual({
      retry: false,
      reason: 'deadline',
    });
  });

  it('makes a draw that ends exactly at the deadline a last attempt', () => {
    // 0.5 × 200 ms = 100 ms, and 100 ms are left.
    const decision = decide(
      outcome({ decisionAt: NOW + 900 }),
      state({ retryCount: 1 }),
      withDeadline,
    );
    expect(decision).toEqual({ retry: true, delayMs: 50, finalAttempt: true });
  });

  it('keeps the Retry-After as the floor of a last attempt', () => {
    const decision = decide(
      outcome({ serverWaitMs: 1000 }),
      state(),
      options({ deadlineMs: 1500 }),
    );
    // 1000 ms asked + 50 ms jitter fits in 1500 ms.
    expect(decision).toEqual({ retry: true, delayMs: 1050, finalAttempt: false });
    const tight = decide(outcome({ serverWaitMs: 1000 }), state(), options({ deadlineMs: 1040 }));
    // 1050 ms would end past 1040 ms: a last attempt between 1000 ms and 1040 ms.
    expect(tight).toEqual({ retry: true, delayMs: 1020, finalAttempt: true });
  });
});

describe('decide: the retry budget', () => {
  it('stops with budget-exhausted when the budget refuses', () => {
    const budget = createRetryBudget({ ratio: 0, minRetriesPerSecond: 1, windowMs: 1000 });
    expect(decide(outcome({ budget }), state(), options()).retry).toBe(true);
    expect(decide(outcome({ budget }), state(), options())).toEqual({
      retry: false,
      reason: 'budget-exhausted',
    });
  });

  it('does not charge a retry of a request that never reached the server', () => {
    const budget = createRetryBudget({ ratio: 0, minRetriesPerSecond: 0, windowMs: 1000 });
    const neverSent = outcome({ classification: refused, status: undefined, budget });
    expect(decide(neverSent, state(), options()).retry).toBe(true);
    expect(decide(outcome({ budget }), state(), options())).toEqual({
      retry: false,
      reason: 'budget-exhausted',
    });
  });

  it('does not charge the budget when another rule stops the call', () => {
    const budget = {
      recordRequest: jest.fn(),
      tryWithdraw: jest.fn(() => true),
      remaining: () => 1,
    };
    decide(outcome({ status: 404, budget }), state(), options());
    decide(outcome({ budget }), state({ retryCount: 3 }), options());
    decide(outcome({ serverWaitMs: 600000, budget }), state(), options());
    expect(budget.tryWithdraw).not.toHaveBeenCalled();
  });
});

describe("decide: the IETF Idempotency-Key draft's 409 (the original still in flight)", () => {
  const conflict = { status: 409, method: 'POST' };
  it.each<[string, Partial<OutcomeToDecide>, Partial<RetryState>, boolean]>([
    [
      'a 409 to a retry of a keyed POST',
      { ...conflict, hasIdempotencyKey: true },
      { retryCount: 1 },
      true,
    ],
    [
      'a 409 to a later retry of a keyed POST',
      { ...conflict, hasIdempotencyKey: true },
      { retryCount: 2 },
      true,
    ],
    [
      'a 409 to the first attempt of a keyed POST',
      { ...conflict, hasIdempotencyKey: true },
      {},
      false,
    ],
    ['a 409 to a retry of an unkeyed GET', { status: 409 }, { retryCount: 1 }, false],
    [
      'a 422 to a retry of a keyed POST',
      { ...conflict, status: 422, hasIdempotencyKey: true },
      { retryCount: 1 },
      false,
    ],
  ])('%s: retried = %s', (_name, given, at, retried) => {
    const decision = decide(outcome(given), state(at), options());
    expect(decision.retry).toBe(retried);
    if (!decision.retry) expect(decision.reason).toBe('not-retryable');
  });

  it('backs off before it, and shouldRetry still overrules it', () => {
    const keyed = outcome({ ...conflict, hasIdempotencyKey: true });
    expect(decide(keyed, state({ retryCount: 1 }), options())).toEqual({
      retry: true,
      delayMs: 100, // 0.5 × the second retry's ceiling of 200
      finalAttempt: false,
    });
    const refused = outcome({ ...conflict, hasIdempotencyKey: true, verdict: () => false });
    expect(decide(refused, state({ retryCount: 1 }), options()).retry).toBe(false);
  });
});

describe('decide: throttles of a paced scope, and refused attempts under a deadline', () => {
  const paced429 = { status: 429, paced: true };

  it('does not count a 429 of a paced scope against retries, up to `retries` of them', () => {
    // 3 retries sent, 2 of them after paced 429s, and this attempt a paced 429: 3 are free.
    const state3 = state({ retryCount: 3, throttledCount: 2 });
    expect(decide(outcome(paced429), state3, options()).retry).toBe(true);
    // 6 sent, 3 free: the count is used up.
    const state6 = state({ retryCount: 6, throttledCount: 5 });
    expect(decide(outcome(paced429), state6, options())).toEqual({
      retry: false,
      reason: 'retries-exhausted',
    });
  });

  it('counts a 429 or 503 of a scope that is not paced, and a paced 500, as usual', () => {
    const used = state({ retryCount: 3 });
    for (const failure of [{ status: 429 }, { status: 503 }, { status: 500, paced: true }]) {
      expect(decide(outcome(failure), used, options())).toEqual({
        retry: false,
        reason: 'retries-exhausted',
      });
    }
    // A paced 503 is an overload pacing bounds (a leaky bucket's default answer).
    const paced503 = outcome({ status: 503, paced: true });
    expect(decide(paced503, used, options()).retry).toBe(true);
  });

  it('with a deadline, does not count attempts that never reached the server', () => {
    const refused = outcome({
      classification: { kind: 'transient', neverSent: true },
      status: undefined,
    });
    const used = state({ retryCount: 5, refusedCount: 4 });
    const withDeadline = options({ deadlineMs: 60_000 });
    expect(decide(refused, used, withDeadline).retry).toBe(true);
    // Without one, they do.
    expect(decide(refused, used, options())).toEqual({
      retry: false,
      reason: 'retries-exhausted',
    });
  });
});
