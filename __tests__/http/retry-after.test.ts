import fc from 'fast-check';
import {
  askedWaitMs,
  MAX_SERVER_WAIT_MS,
  parseHttpDate,
  retryAfterMs,
  serverNowOf,
  serverWait,
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
    ['a day and a second', '86401', 86_401_000],
    ['a year', '31536000', 31_536_000_000],
    ['1 followed by 308 zeros', `1${'0'.repeat(308)}`, Infinity],
    ['400 digits (Infinity as a double)', '9'.repeat(400), Infinity],
  ])('reads %s as it is (a call stops on it), but no hold takes it', (_, value, ms) => {
    expect(retryAfterMs(value, undefined, NOW)).toBe(ms);
    expect(serverWait(retryAfterMs(value, undefined, NOW))).toBeUndefined();
  });

  it('takes a day, and reads an HTTP-date years ahead as the wait it is', () => {
    expect(retryAfterMs('86400', undefined, NOW)).toBe(MAX_SERVER_WAIT_MS);
    expect(serverWait(MAX_SERVER_WAIT_MS)).toBe(MAX_SERVER_WAIT_MS);
    expect(retryAfterMs('Fri, 01 Jan 2100 00:00:00 GMT', undefined, NOW)).toBe(
      Date.UTC(2100, 0, 1) - NOW,
    );
  });

  it.each([
    ['1.5', 1500],
    ['2.0', 2000],
    [' 0.25 ', 250],
  ])('reads fractional seconds %j (Shopify, Discord) as %i ms', (value, ms) => {
    expect(retryAfterMs(value, undefined, NOW)).toBe(ms);
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
    ['a fraction without its whole part', '.5'],
    ['a fraction without digits after the point', '1.'],
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

describe('askedWaitMs: the headers of a wait, in the order they are believed', () => {
  const asked = (headers: Record<string, string>) => askedWaitMs((name) => headers[name], NOW);

  it.each<[string, Record<string, string>, number | undefined]>([
    ['Retry-After-Ms (OpenAI)', { 'retry-after-ms': '1500' }, 1500],
    ['Retry-After-Ms with a fraction', { 'retry-after-ms': '12.5' }, 12.5],
    ['X-Ms-Retry-After-Ms (Azure)', { 'x-ms-retry-after-ms': '2500' }, 2500],
    ['Retry-After-Ms over Retry-After', { 'retry-after-ms': '1500', 'retry-after': '4' }, 1500],
    [
      'Retry-After-Ms over a longer X-Ms',
      { 'retry-after-ms': '100', 'x-ms-retry-after-ms': '900' },
      100,
    ],
    [
      'X-Ms-Retry-After-Ms over Retry-After',
      { 'x-ms-retry-after-ms': '700', 'retry-after': '4' },
      700,
    ],
    ['Retry-After over its X- form', { 'retry-after': '3', 'x-ratelimit-retry-after': '9' }, 3000],
    ['the X- form alone', { 'x-ratelimit-retry-after': '9' }, 9000],
    [
      'a garbage Retry-After-Ms falls to Retry-After',
      { 'retry-after-ms': 'soon', 'retry-after': '2' },
      2000,
    ],
    [
      'an HTTP-date in Retry-After-Ms is not milliseconds',
      { 'retry-after-ms': 'Mon, 30 Nov 2026 12:00:30 GMT' },
      undefined,
    ],
    [
      'a date, against the Date header',
      { 'retry-after': 'Mon, 30 Nov 2026 12:00:30 GMT', date: 'Mon, 30 Nov 2026 12:00:10 GMT' },
      20_000,
    ],
    ['nothing', {}, undefined],
    ['30 days, unbounded', { 'retry-after-ms': '2592000000' }, 2_592_000_000],
  ])('%s', (_, headers, ms) => {
    expect(asked(headers)).toBe(ms);
  });

  it('never throws, never NaN nor negative (property)', () => {
    const names = [
      'retry-after-ms',
      'x-ms-retry-after-ms',
      'retry-after',
      'x-ratelimit-retry-after',
      'date',
    ];
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.constantFrom(...names),
          fc.oneof(fc.string(), fc.stringMatching(/^[0-9. ]{0,30}$/)),
        ),
        (headers) => {
          const ms = asked(headers);
          if (ms !== undefined) expect(ms).toBeGreaterThanOrEqual(0);
          const held = serverWait(ms);
          expect(held === undefined || (held >= 0 && held <= MAX_SERVER_WAIT_MS)).toBe(true);
        },
      ),
    );
  });
});
