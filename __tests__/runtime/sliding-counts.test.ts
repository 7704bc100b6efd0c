// The sliding counts under the retry budget and the breaker's outcome window: a count leaves
// the window between windowMs and 1.1 × windowMs after it was made, never early.
import { createSlidingCounts } from '../../src/runtime/sliding-counts';

describe('createSlidingCounts', () => {
  it('keeps a count for the whole window, and drops it within a tenth of a window more', () => {
    const counts = createSlidingCounts(1000, 1);
    counts.add(0, 0);
    expect(counts.sum(999, 0)).toBe(1);
    expect(counts.sum(1099, 0)).toBe(1);
    expect(counts.sum(1100, 0)).toBe(0);
  });

  it('drops every count after a jump of many windows', () => {
    const counts = createSlidingCounts(1000, 1);
    for (let t = 0; t < 1000; t += 100) counts.add(t, 0);
    expect(counts.sum(999, 0)).toBe(10);
    expect(counts.sum(50_000, 0)).toBe(0);
  });

  it('a count made in the slot the ring comes back to starts from zero there', () => {
    const counts = createSlidingCounts(1000, 1);
    counts.add(0, 0);
    counts.add(1100, 0); // the slot of 0 ms, one turn of the ring later
    expect(counts.sum(1100, 0)).toBe(1);
  });

  it('counts each kind apart', () => {
    const counts = createSlidingCounts(1000, 2);
    counts.add(0, 0);
    counts.add(0, 1);
    counts.add(0, 1);
    expect([counts.sum(0, 0), counts.sum(0, 1)]).toEqual([1, 2]);
    expect([counts.sum(1100, 0), counts.sum(1100, 1)]).toEqual([0, 0]);
  });

  it('keeps counts made after the clock stepped back in the latest slot', () => {
    const counts = createSlidingCounts(1000, 1);
    counts.add(5000, 0);
    counts.add(1000, 0); // a step back of 4 s
    expect(counts.sum(5000, 0)).toBe(2);
    expect(counts.sum(6099, 0)).toBe(2);
    expect(counts.sum(6100, 0)).toBe(0);
  });

  it('clear() empties every slot', () => {
    const counts = createSlidingCounts(1000, 1);
    counts.add(0, 0);
    counts.add(500, 0);
    counts.clear();
    expect(counts.sum(500, 0)).toBe(0);
  });
});
