import fc from 'fast-check';
import type { OutcomeCounts } from '../src/outcome-window';
import { createPacer } from '../src/pacer';

const settings = { growthPerSecond: 0.05, healthyAfterMs: 5000, minRatePerSecond: 0.5 };
const counts = (successes: number, failures = 0, spanMs = 1000): OutcomeCounts => ({
  successes,
  failures,
  spanMs,
});
const pacer = (random = () => 0.5) => createPacer(settings, random);

/** Reserves `n` slots at `now` and returns them, to the nearest millisecond (the rate climbs). */
function slots(p: ReturnType<typeof pacer>, now: number, n: number): number[] {
  return Array.from({ length: n }, () => Math.round(p.reserve(now, Infinity) as number));
}

describe('createPacer', () => {
  it('paces nothing before a throttle signal', () => {
    const p = pacer();
    expect(p.paced).toBe(false);
    expect(slots(p, 100, 3)).toEqual([100, 100, 100]);
  });

  it('after a 429, spaces sends at the rate the origin accepted over the window', () => {
    const p = pacer();
    p.throttle(0, counts(50), undefined, 'limit');
    expect(p.paced).toBe(true);
    expect(slots(p, 0, 3)).toEqual([0, 20, 40]); // 50 per second
  });

  it('measures over at least 100 ms, so a quick burst is not taken for a huge rate', () => {
    const p = pacer();
    p.throttle(20, counts(10, 180, 20), undefined, 'overload');
    expect(slots(p, 20, 2)).toEqual([20, 30]); // 10 per 100 ms
  });

  it('an unpaced client that meets a 429 with a wait holds every send until it is over', () => {
    const p = pacer();
    p.throttle(60, counts(50, 1, 60), 1000, 'limit');
    // The wait sets the time scale of the measure too: 50 accepted over a second.
    expect(slots(p, 100, 2)).toEqual([1060, 1080]);
  });

  it('a 429 with no wait: holds until a second after the burst began, and measures over a second', () => {
    const p = pacer();
    // 20 accepted in the 40 ms since the first request: a quota of 20 per second, spent.
    p.throttle(40, counts(20, 1, 40), undefined, 'limit');
    expect(slots(p, 40, 2)).toEqual([1000, 1050]);
  });

  it('a paced client that meets a 429 slows down, but does not hold everything for its wait', () => {
    const p = pacer();
    p.throttle(0, counts(50), undefined, 'limit');
    p.reserve(0, Infinity);
    p.throttle(10, counts(40), 1000, 'limit');
    expect(slots(p, 10, 2)).toEqual([20, 45]); // 40 per second now
  });

  it('a spent quota holds every send until the reset, paced or not', () => {
    const p = pacer();
    p.throttle(0, counts(50), undefined, 'limit');
    p.throttle(100, counts(50), 2000, 'quota');
    expect(p.reserve(100, Infinity)).toBe(2100);
  });

  it('after a spent quota, paces at the quota its headers announce when more than was measured', () => {
    const p = pacer();
    // One success seen (the quota was spent by requests still in flight); 10 a second announced.
    p.throttle(0, counts(1, 0, 20), 1000, 'quota', 10);
    expect(slots(p, 0, 2)).toEqual([1000, 1100]);
  });

  it('spreads a hold over a second when no rate is known', () => {
    const p = pacer(() => 0.25);
    p.throttle(0, counts(0, 1), 1000, 'quota');
    expect(p.paced).toBe(false);
    expect(p.reserve(0, Infinity)).toBe(1250);
    expect(p.reserve(2000, Infinity)).toBe(2000);
  });

  it('learns nothing from a throttle when nothing was accepted (a dead origin)', () => {
    const p = pacer();
    p.throttle(0, counts(0, 20), undefined, 'overload');
    expect(p.paced).toBe(false);
  });

  it('climbs by growthPerSecond of its rate each second, up to twice the rate', () => {
    const p = pacer();
    p.throttle(0, counts(100), undefined, 'limit');
    expect(p.reserve(0, Infinity)).toBe(0);
    // At 2 s the rate is 110 per second: the slot after one taken then is 1000 / 110 ms later.
    expect(p.reserve(2000, Infinity)).toBe(2000);
    expect(p.reserve(2000, Infinity)).toBeCloseTo(2000 + 1000 / 110, 6);
    // Slots handed out far ahead are spaced at the rate of now, not of when they come.
    const ahead = Array.from({ length: 300 }, () => p.reserve(2000, Infinity) as number);
    expect((ahead[299] as number) - (ahead[298] as number)).toBeCloseTo(1000 / 110, 6);
    // Capped at 200 per second, however long it climbs (the signal at 4.99 s keeps it paced).
    p.throttle(4990, counts(1000), undefined, 'limit');
    expect(p.reserve(4990 + 4999, Infinity)).toBeGreaterThan(0);
  });

  it('returns to unpaced after healthyAfterMs with no signal', () => {
    const p = pacer();
    p.throttle(0, counts(10), undefined, 'limit');
    expect(slots(p, 4999, 2)).toEqual([4999, 5079]); // 10 per second, climbed by 25%
    expect(slots(p, 5000, 2)).toEqual([5000, 5000]);
    expect(p.paced).toBe(false);
  });

  it('counts healthyAfterMs from the last signal', () => {
    const p = pacer();
    p.throttle(1000, counts(10), undefined, 'limit');
    expect(p.reserve(5999, Infinity)).toBe(5999);
    expect(p.paced).toBe(true);
    expect(p.reserve(6000, Infinity)).toBe(6000);
    expect(p.paced).toBe(false);
  });

  it('reserves nothing past the latest time while held with no rate known', () => {
    const p = pacer(() => 0.25);
    p.throttle(0, counts(0, 1), 1000, 'quota');
    expect(p.reserve(0, 1249)).toBeUndefined();
    expect(p.reserve(0, 1250)).toBe(1250);
  });

  it('reserves nothing when the slot would come after the latest time given', () => {
    const p = pacer();
    p.throttle(0, counts(1), undefined, 'limit'); // 1 per second
    expect(p.reserve(0, 10)).toBe(0);
    expect(p.reserve(0, 999)).toBeUndefined();
    expect(p.reserve(0, 1000)).toBe(1000); // the refused reservation took no slot
  });

  it('stops pacing 503s that a window of pacing did not cure, and ignores them for a while', () => {
    const p = pacer();
    p.throttle(0, counts(70, 30), undefined, 'overload');
    expect(p.paced).toBe(true);
    p.throttle(1201, counts(70, 30), undefined, 'overload');
    expect(p.paced).toBe(false);
    p.throttle(3000, counts(70, 30), undefined, 'overload');
    expect(p.paced).toBe(false);
    // A 429 is still heard.
    p.throttle(3000, counts(70, 30), undefined, 'limit');
    expect(p.paced).toBe(true);
  });

  it('after a breaker closes, releases at the last good rate, ramping to twice it within a second', () => {
    const p = pacer();
    p.release(0, 100);
    const backlog = slots(p, 0, 150);
    expect(backlog.slice(0, 2)).toEqual([0, 10]); // 10 ms apart at first
    // Ramping: the waiting calls take their slots at once, and the later ones come closer.
    expect((backlog[149] as number) - (backlog[148] as number)).toBeLessThan(6);
    const [a, b] = slots(p, 1000, 2);
    expect((b as number) - (a as number)).toBe(5); // twice the rate after a second
  });

  it('after a release, is unpaced after healthyAfterMs', () => {
    const p = pacer();
    p.release(0, 100);
    expect(slots(p, 0, 3)).toEqual([0, 10, 20]);
    expect(slots(p, 4999, 2)).toEqual([4999, 5004]); // still held, to twice the rate
    expect(slots(p, 5000, 2)).toEqual([5000, 5000]);
    expect(p.paced).toBe(false);
  });

  it('never sends faster than the rate it holds (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 500 }),
        fc.array(fc.integer({ min: 0, max: 50 }), { minLength: 2, maxLength: 100 }),
        (accepted, gaps) => {
          const p = pacer();
          p.throttle(0, counts(accepted), undefined, 'limit');
          let now = 0;
          const sent: number[] = [];
          for (const gap of gaps) {
            now += gap;
            sent.push(p.reserve(now, Infinity) as number);
          }
          // Within the healthy period the rate never exceeds twice what was accepted.
          for (let i = 1; i < sent.length; i++) {
            if ((sent[i] as number) >= settings.healthyAfterMs) break;
            expect((sent[i] as number) - (sent[i - 1] as number)).toBeGreaterThanOrEqual(
              1000 / (2 * accepted) - 1e-9,
            );
          }
        },
      ),
    );
  });
});

describe('createPacer: overload that pacing did not cause', () => {
  it('starts measuring whether pacing helps only once it paces', () => {
    const p = pacer();
    // A first 503 with nothing accepted yet: nothing to pace at, nothing to measure.
    p.throttle(0, counts(0, 1), undefined, 'overload');
    expect(p.paced).toBe(false);
    // Much later, a real overload: paced, and given a whole window to show it helps.
    p.throttle(5000, counts(10, 20), undefined, 'overload');
    expect(p.paced).toBe(true);
    p.throttle(5100, counts(10, 20), undefined, 'overload');
    expect(p.paced).toBe(true);
  });

  it('gives pacing a whole window to cure an overload before it gives up', () => {
    const p = pacer();
    p.throttle(0, counts(70, 30), undefined, 'overload');
    p.throttle(1100, counts(70, 30), undefined, 'overload');
    expect(p.paced).toBe(true);
  });

  it('ignores 503s until the origin has been free of them for healthyAfterMs', () => {
    const p = pacer();
    p.throttle(0, counts(70, 30), undefined, 'overload');
    p.throttle(1201, counts(70, 30), undefined, 'overload'); // gives up: ignores until 6201
    p.throttle(3000, counts(70, 30), undefined, 'overload'); // ignored: until 8000 now
    p.throttle(7000, counts(70, 30), undefined, 'overload'); // ignored: until 12000
    expect(p.paced).toBe(false);
    p.throttle(12_000, counts(70, 30), undefined, 'overload');
    expect(p.paced).toBe(true);
  });

  it('does not take the time paced for a 429 as a window of pacing that failed to cure a 503', () => {
    const p = pacer();
    p.throttle(0, counts(50), undefined, 'limit');
    p.throttle(1500, counts(70, 30), undefined, 'overload');
    expect(p.paced).toBe(true);
  });
});
