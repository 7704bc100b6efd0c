// Behaviours of src/retry that no test pinned until its mutation run found them
// (docs/mutation.md): each test below fails with the mutant its comment names.
import { createRetryBudget } from '../../src/retry/budget';
import { decide, isPacedThrottle } from '../../src/retry/policy';
import { options, outcome, state } from '../helpers/decide-fixtures';

describe("decide: the server's advice", () => {
  it('`advice: true` retries what the default rule would not (a POST 503 without a key)', () => {
    const post = outcome({ method: 'POST' });
    expect(decide(post, state(), options()).retry).toBe(false);
    expect(decide({ ...post, advice: true }, state(), options())).toMatchObject({
      retry: true,
    });
  });

  it('`advice: false` stops a call the default rule would retry, as upstream-gave-up', () => {
    expect(decide(outcome({ advice: false }), state(), options())).toEqual({
      retry: false,
      reason: 'upstream-gave-up',
    });
  });
});

describe('decide: what is not counted against `retries`', () => {
  it('a paced 429 is free, like a paced 503 (isPacedThrottle)', () => {
    expect(isPacedThrottle(outcome({ status: 429, paced: true }))).toBe(true);
    // Three retries sent, none throttled so far: this paced 429 is the first free one.
    const used = state({ retryCount: 3 });
    expect(decide(outcome({ status: 429, paced: true }), used, options())).toEqual(
      expect.objectContaining({ retry: true }),
    );
  });

  it('under a deadline, this refused attempt is not counted either (none refused before)', () => {
    const refused = outcome({
      classification: { kind: 'transient', neverSent: true },
      status: undefined,
    });
    const used = state({ retryCount: 3 });
    expect(decide(refused, used, options({ deadlineMs: 60_000 })).retry).toBe(true);
  });
});

describe("decide: the caller's retryDelay", () => {
  const delay = () => 1234;

  it('takes the place of the backoff draw', () => {
    expect(decide(outcome({ delay }), state(), options())).toEqual({
      retry: true,
      delayMs: 1234,
      finalAttempt: false,
    });
  });

  it("gives way to a server's wait", () => {
    // 500 ms asked, then the first retry's spread: 0.5 × 100 ms.
    expect(decide(outcome({ delay, serverWaitMs: 500 }), state(), options())).toEqual({
      retry: true,
      delayMs: 550,
      finalAttempt: false,
    });
  });

  it('without one, the draw is the delay', () => {
    expect(decide(outcome(), state(), options())).toEqual({
      retry: true,
      delayMs: 50,
      finalAttempt: false,
    });
  });
});

describe('RetryBudget.remaining', () => {
  const settings = { ratio: 1, minRetriesPerSecond: 1, windowMs: 1000 };

  it('is 1 while nothing is spent, and falls as retries are', () => {
    const budget = createRetryBudget(settings);
    for (let i = 0; i < 3; i++) budget.recordRequest(0);
    expect(budget.remaining(0)).toBe(1);
    budget.tryWithdraw(0);
    expect(budget.remaining(0)).toBe(0.75); // 1 of 3 × 1 + 1
  });

  it('is 0, not NaN, when nothing is allowed at all', () => {
    const budget = createRetryBudget({ ratio: 0.5, minRetriesPerSecond: 0, windowMs: 1000 });
    expect(budget.remaining(0)).toBe(0);
  });

  it('is 0, not below, once the requests that paid for the retries left the window first', () => {
    const budget = createRetryBudget(settings);
    for (let i = 0; i < 10; i++) budget.recordRequest(0);
    for (let i = 0; i < 11; i++) expect(budget.tryWithdraw(900)).toBe(true);
    // At 1 150 ms the requests are gone (allowed: the floor of 1), the 11 retries are not.
    expect(budget.remaining(1150)).toBe(0);
  });
});
