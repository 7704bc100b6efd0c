import fc from 'fast-check';
import { parseDuration } from '../../src/http/duration';
import { serverWait } from '../../src/http/retry-after';

// OpenAI's resets (`x-ratelimit-reset-requests: 6m0s`) are Go durations.

describe('parseDuration', () => {
  it.each([
    ['1s', 1000],
    ['6m0s', 360_000],
    ['20ms', 20],
    ['1h2m3.5s', 3_723_500],
    ['0s', 0],
    ['59.999s', 59_999],
    ['2h0m0s', 7_200_000],
    ['1.5m', 90_000],
    ['500us', 0.5],
    ['500µs', 0.5],
    ['3ns', 3e-6],
    [' 7s ', 7000],
    ['1m1ms', 60_001],
  ])('%j is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBeCloseTo(ms, 9);
  });

  it.each([
    ['empty', ''],
    ['a number without a unit', '5'],
    ['a unit without a number', 's'],
    ['a trailing number', '1m5'],
    ['an unknown unit', '5y'],
    ['days (Go writes none)', '1d'],
    ['a negative', '-1s'],
    ['a point without digits', '1.s'],
    ['spaces between parts', '1m 5s'],
    ['prose', 'soon'],
    ['text after it', '5s later'],
  ])('%s (%j) is not a duration', (_, text) => {
    expect(parseDuration(text)).toBeUndefined();
  });

  it('reads any duration Go would write, to the millisecond (property)', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 1000 }),
        fc.nat({ max: 59 }),
        fc.nat({ max: 59_999 }),
        (h, m, ms) => {
          const text = `${h ? `${h}h` : ''}${h || m ? `${m}m` : ''}${ms / 1000}s`;
          expect(parseDuration(text)).toBeCloseTo(h * 3_600_000 + m * 60_000 + ms, 6);
        },
      ),
    );
  });

  it('never throws, never NaN nor negative; bounded as a hold, never past a day (property)', () => {
    const durationish = fc.stringMatching(/^[0-9.hmsuµn ]{0,40}$/);
    fc.assert(
      fc.property(fc.oneof(fc.string(), durationish), (text) => {
        const ms = parseDuration(text);
        if (ms !== undefined) {
          expect(Number.isNaN(ms)).toBe(false);
          expect(ms).toBeGreaterThanOrEqual(0);
        }
        const held = serverWait(ms);
        if (held !== undefined) expect(held).toBeLessThanOrEqual(86_400_000);
      }),
    );
  });
});
