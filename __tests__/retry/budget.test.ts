import fc from 'fast-check';
import { createRetryBudget } from '../../src/retry/budget';

const settings = { ratio: 0.1, minRetriesPerSecond: 10, windowMs: 10_000 };

/** Withdraws until the budget refuses; returns how many it allowed. */
function drain(budget: ReturnType<typeof createRetryBudget>, now: number): number {
  let allowed = 0;
  while (budget.tryWithdraw(now)) allowed++;
  return allowed;
}

describe('createRetryBudget', () => {
  it('allows minRetriesPerSecond × window with no traffic', () => {
    expect(drain(createRetryBudget(settings), 0)).toBe(100);
  });

  it('adds ratio × requests on top of the floor', () => {
    const budget = createRetryBudget(settings);
    for (let i = 0; i < 1000; i++) budget.recordRequest(i * 5);
    expect(drain(budget, 5000)).toBe(200); // 0.1 × 1000 + 10 × 10 s
  });

  it('with no floor, allows exactly the ratio', () => {
    const budget = createRetryBudget({ ratio: 0.5, minRetriesPerSecond: 0, windowMs: 1000 });
    for (let i = 0; i < 10; i++) budget.recordRequest(0);
    expect(drain(budget, 0)).toBe(5);
  });

  it('a refused withdrawal leaves the budget unchanged', () => {
    const budget = createRetryBudget({ ratio: 0, minRetriesPerSecond: 1, windowMs: 1000 });
    expect(budget.tryWithdraw(0)).toBe(true);
    expect(budget.tryWithdraw(0)).toBe(false);
    expect(budget.tryWithdraw(0)).toBe(false);
    expect(budget.tryWithdraw(1099)).toBe(false);
    expect(budget.tryWithdraw(1100)).toBe(true);
  });

  it('forgets requests and retries once they leave the window', () => {
    const budget = createRetryBudget(settings);
    for (let i = 0; i < 1000; i++) budget.recordRequest(0);
    expect(drain(budget, 0)).toBe(200);
    expect(budget.tryWithdraw(10_000)).toBe(false); // a count is held a full window at least
    expect(drain(budget, 11_000)).toBe(100); // requests gone, retries gone: the floor again
  });

  it('keeps its counts when the clock steps backwards', () => {
    const budget = createRetryBudget(settings);
    for (let i = 0; i < 1000; i++) budget.recordRequest(5000);
    expect(budget.tryWithdraw(4000)).toBe(true);
    expect(drain(budget, 5000)).toBe(199);
  });

  it('starts afresh after a long idle period, however long', () => {
    const budget = createRetryBudget(settings);
    drain(budget, 0);
    expect(drain(budget, 10 ** 12)).toBe(100);
  });

  it('never lets retries in any window exceed ratio × requests + floor (property)', () => {
    const event = fc.record({
      gap: fc.integer({ min: 0, max: 700 }),
      isRetry: fc.boolean(),
    });
    fc.assert(
      fc.property(
        fc.array(event, { maxLength: 400 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 0, max: 5 }),
        (events, ratio, minRetriesPerSecond) => {
          const windowMs = 1000;
          const budget = createRetryBudget({ ratio, minRetriesPerSecond, windowMs });
          const floor = (minRetriesPerSecond * windowMs) / 1000;
          const log: { at: number; isRetry: boolean }[] = [];
          let now = 0;
          for (const { gap, isRetry } of events) {
            now += gap;
            if (!isRetry) {
              budget.recordRequest(now);
              log.push({ at: now, isRetry: false });
            } else if (budget.tryWithdraw(now)) {
              log.push({ at: now, isRetry: true });
            }
          }
          // Every window that ends at a granted retry: requests counted there are a superset of
          // those the budget still held, so the bound must hold over the full window.
          return log.every(({ at, isRetry }) => {
            if (!isRetry) return true;
            const inWindow = log.filter((e) => e.at > at - windowMs && e.at <= at);
            const retries = inWindow.filter((e) => e.isRetry).length;
            const requests = inWindow.length - retries;
            // The ring drops counts up to one slot late, so requests up to a slot old still count.
            const lateRequests = log.filter(
              (e) => !e.isRetry && e.at > at - windowMs - windowMs / 10 && e.at <= at - windowMs,
            ).length;
            return retries <= ratio * (requests + lateRequests) + floor + 1e-9;
          });
        },
      ),
      { numRuns: 500 },
    );
  });
});
