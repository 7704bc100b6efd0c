import fc from 'fast-check';
import {
  MAX_SERVER_WAIT_MS,
  parseHttpDate,
  retryAfterMs,
  serverNowOf,
} from '../../src/http/retry-after';

const NOW = Date.UTC(2026, 10, 30, 12, 0, 0); // Mon, 30 Nov 2026 12:00:00 GMT

describe('retryAfterMs: delay-seconds', () => {
  it.each([
    ['0', 0],
    ['1', 1000],
    ['120', 120_000],
    [' 7 ', 7000],
  ])('%j asks for %i ms', (value, ms) => {
    expect(retryAfterMs(value, undefined, NOW)).toBe(ms);
  });

  it('round-trips any whole number of seconds up to a day (property)', () => {
    fc.assert(
      fc.property(fc.nat({ max: 86_400 }), (seconds) => {
        return retryAfterMs(String(seconds), undefined, NOW) === seconds * 1000;
      }),
    );
  });

  it.each([
    ['a day and a second', '86401'],
    ['a year', '31536000'],
    ['1 followed by 308 zeros', `1${'0'.repeat(308)}`],
    ['400 digits (Infinity as a double)', '9'.repeat(400)],
  ])('ignores %s: more than a day is garbage, not a wait', (_, value) => {
    expect(retryAfterMs(value, undefined, NOW)).toBeUndefined();
  });

  it('takes a day, and ignores an HTTP-date years ahead', () => {
    expect(retryAfterMs('86400', undefined, NOW)).toBe(MAX_SERVER_WAIT_MS);
    expect(retryAfterMs('Fri, 01 Jan 2100 00:00:00 GMT', undefined, NOW)).toBeUndefined();
  });
});

describe('serverNowOf', () => {
  it('takes a Date skewed by more than a second, up to a day', () => {
    const ahead = new Date(NOW + 30_000).toUTCString();
    expect(serverNowOf(ahead, NOW)).toBe(NOW + 30_000);
  });

  it('takes a Date within the second it is truncated to as it is; finer, its own clock', () => {
    const truncated = new Date(NOW - 900).toUTCString(); // NOW - 900 ms, to the second
    expect(serverNowOf(truncated, NOW)).toBe(NOW - 1000);
    expect(serverNowOf(truncated, NOW, true)).toBe(NOW);
  });

  it('takes its own clock for a Date more than a day off (a broken server clock)', () => {
    expect(serverNowOf('Mon, 01 Jan 2001 00:00:00 GMT', NOW)).toBe(NOW);
  });
});

describe('retryAfterMs: HTTP-date', () => {
  it.each([
    ['IMF-fixdate', 'Mon, 30 Nov 2026 12:00:30 GMT'],
    ['RFC 850', 'Monday, 30-Nov-26 12:00:30 GMT'],
    ['asctime', 'Mon Nov 30 12:00:30 2026'],
  ])('reads the %s form against the local clock when there is no Date header', (_form, value) => {
    expect(retryAfterMs(value, undefined, NOW)).toBe(30_000);
  });

  it.each([
    ['IMF-fixdate', 'Mon, 30 Nov 2026 12:00:30 UTC'],
    ['RFC 850', 'Monday, 30-Nov-26 12:00:30 utc'],
  ])(
    'reads the %s form written with UTC instead of GMT, as some servers send it',
    (_form, value) => {
      expect(retryAfterMs(value, undefined, NOW)).toBe(30_000);
      expect(retryAfterMs('Mon, 30 Nov 2026 12:00:30 GMT', value, NOW)).toBe(0);
    },
  );

  it('reads asctime days padded with a space', () => {
    expect(parseHttpDate('Sun Nov  6 08:49:37 1994', NOW)).toBe(Date.UTC(1994, 10, 6, 8, 49, 37));
  });

  it("measures against the response's Date header (the server's clock), not the local clock", () => {
    // The local clock runs 10 minutes fast; the server asks for 30 s from its own now.
    const localNow = NOW + 10 * 60_000;
    expect(
      retryAfterMs('Mon, 30 Nov 2026 12:00:30 GMT', 'Mon, 30 Nov 2026 12:00:00 GMT', localNow),
    ).toBe(30_000);
  });

  it('reads a Date header with white space around it', () => {
    const localNow = NOW + 60_000;
    expect(
      retryAfterMs('Mon, 30 Nov 2026 12:00:30 GMT', ' Mon, 30 Nov 2026 12:00:00 GMT ', localNow),
    ).toBe(30_000);
  });

  it('falls back to the local clock when the Date header is not a date', () => {
    expect(retryAfterMs('Mon, 30 Nov 2026 12:00:30 GMT', 'yesterday', NOW)).toBe(30_000);
  });

  it('asks for no wait when the date is past', () => {
    expect(retryAfterMs('Mon, 30 Nov 2026 11:00:00 GMT', undefined, NOW)).toBe(0);
  });

  it('reads an RFC 850 year over 50 years ahead as the century before', () => {
    expect(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT', NOW)).toBe(
      Date.UTC(1994, 10, 6, 8, 49, 37),
    );
    expect(parseHttpDate('Friday, 06-Nov-76 08:49:37 GMT', NOW)).toBe(
      Date.UTC(2076, 10, 6, 8, 49, 37),
    );
  });

  it('round-trips any IMF-fixdate that Date#toUTCString writes (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4_000_000_000 }), (seconds) => {
        const time = seconds * 1000;
        return parseHttpDate(new Date(time).toUTCString(), NOW) === time;
      }),
    );
  });
});

describe('retryAfterMs: values that are not valid', () => {
  it.each([
    ['absent', undefined],
    ['empty', ''],
    ['negative', '-5'],
    ['fractional', '1.5'],
    ['with a unit', '5s'],
    ['prose', 'soon'],
    ['a date without its zone', 'Mon, 30 Nov 2026 12:00:30'],
    ['a date in another zone', 'Mon, 30 Nov 2026 12:00:30 CET'],
    ['a date with a bad month', 'Mon, 30 Foo 2026 12:00:30 GMT'],
    ['a date that does not exist', 'Mon, 31 Feb 2026 12:00:30 GMT'],
    ['a time that does not exist', 'Mon, 30 Nov 2026 25:00:30 GMT'],
    ['hour 24', 'Mon, 30 Nov 2026 24:00:00 GMT'],
    ['minute 60', 'Mon, 30 Nov 2026 12:60:00 GMT'],
    ['second 61', 'Mon, 30 Nov 2026 12:00:61 GMT'],
    ['an ISO date', '2026-11-30T12:00:30Z'],
    ['a date after other text', 'on Mon, 30 Nov 2026 12:00:30 GMT'],
    ['a date before other text', 'Mon, 30 Nov 2026 12:00:30 GMT or so'],
    ['an asctime date after other text', 'x Mon Nov 30 12:00:30 2026'],
    ['an asctime date before other text', 'Mon Nov 30 12:00:30 2026 UTC'],
  ])('%s → undefined (plain backoff)', (_label, value) => {
    expect(retryAfterMs(value, undefined, NOW)).toBeUndefined();
  });

  it('never throws and never returns a negative or NaN wait (property)', () => {
    fc.assert(
      fc.property(fc.string(), fc.option(fc.string(), { nil: undefined }), (value, date) => {
        const ms = retryAfterMs(value, date, NOW);
        return ms === undefined || (ms >= 0 && !Number.isNaN(ms));
      }),
    );
  });
});
