import fc from 'fast-check';
import { backoffCeiling, fullJitterDelay } from '../../src/retry/backoff';

const settings = { baseDelayMs: 100, maxDelayMs: 20_000 };

describe('backoffCeiling', () => {
  it.each([
    [1, 100],
    [2, 200],
    [3, 400],
    [8, 12_800],
    [9, 20_000],
    [5000, 20_000],
  ])('retry %i has ceiling %i ms', (retry, ceiling) => {
    expect(backoffCeiling(retry, settings)).toBe(ceiling);
  });

  it('stays a finite number for huge retry counts', () => {
    expect(backoffCeiling(1e9, { baseDelayMs: 1, maxDelayMs: 5 })).toBe(5);
    expect(fullJitterDelay(1e9, { baseDelayMs: 0, maxDelayMs: 5 }, () => 0.5)).toBe(0);
  });
});

describe('fullJitterDelay', () => {
  it('draws over the whole interval: random() times the ceiling', () => {
    expect(fullJitterDelay(3, settings, () => 0)).toBe(0);
    expect(fullJitterDelay(3, settings, () => 0.5)).toBe(200);
    expect(fullJitterDelay(3, settings, () => 0.999)).toBeCloseTo(399.6);
  });

  it('is always within [0, ceiling) and never above maxDelayMs (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (retry, baseDelayMs, maxDelayMs, r) => {
          const delay = fullJitterDelay(retry, { baseDelayMs, maxDelayMs }, () => r);
          const ceiling = backoffCeiling(retry, { baseDelayMs, maxDelayMs });
          return delay >= 0 && delay <= ceiling && ceiling <= maxDelayMs;
        },
      ),
    );
  });

  it('has a ceiling that never shrinks from one retry to the next (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200 }), (retry) => {
        return backoffCeiling(retry + 1, settings) >= backoffCeiling(retry, settings);
      }),
    );
  });
});
