import fc from 'fast-check';
import type { RetryState } from '../../src';
import { failureIn } from '../helpers/failure';
import { mockClient, settle } from '../helpers/mock-client';

// Issue 21, item 5: a call never retries earlier than a server asked. A wait too long, or
// absurd (past a day: 30 days, a Unix time taken for seconds, a date decades ahead), stops the
// call with `retry-after-too-long`; it is never "ignored" into a retry on the call's own
// backoff. Load control's hold ignores such a value, and stays bounded. Mock adapter, fake
// timers, the wall clock at 1 Dec 2026.

const START = Date.UTC(2026, 11, 1, 12, 0, 0);
const DAY_MS = 86_400_000;

beforeEach(() => {
  jest.useFakeTimers({ now: START });
});
afterEach(() => {
  jest.useRealTimers();
});

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** RFC 850's form of a time ("Sunday, 06-Nov-94 08:49:37 GMT"). */
function rfc850(time: number): string {
  const [, day, month, year, clock] = new Date(time).toUTCString().split(' ');
  return `${WEEKDAYS[new Date(time).getUTCDay()]}, ${day}-${month}-${year?.slice(2)} ${clock} GMT`;
}

/** asctime's form ("Sun Nov  6 08:49:37 1994"). */
function asctime(time: number): string {
  const d = new Date(time);
  const [weekday, , month, year, clock] = d.toUTCString().split(' ');
  const day = String(d.getUTCDate()).padStart(2, ' ');
  return `${weekday?.slice(0, 3)} ${month} ${day} ${clock} ${year}`;
}

/** The first answer is a 429 with `headers`, every later one a 200; the times of the sends. */
function throttledOnce(headers: Record<string, string>, options = {}) {
  const made = mockClient({ random: () => 0, ...options });
  const sent: number[] = [];
  made.mock.onGet('/items').reply(() => {
    sent.push(Date.now());
    return sent.length === 1 ? [429, '', headers] : [200, 'ok'];
  });
  return { ...made, sent };
}

const stopReasonOf = (error: unknown) =>
  (failureIn({ error }).config?.retryState as RetryState | undefined)?.stopReason;

describe('an absurd or too-long wait stops the call: it is never retried sooner', () => {
  const fortyNineYears = Date.UTC(2075, 11, 1, 12, 0, 0);
  it.each<[string, Record<string, string>, object]>([
    [
      'Retry-After: 2592000 (30 days), maxRetryAfterMs: Infinity',
      { 'Retry-After': '2592000' },
      { maxRetryAfterMs: Infinity },
    ],
    ['Retry-After: 1704067200 (a Unix time)', { 'Retry-After': '1704067200' }, {}],
    [
      'Retry-After: 1704067200, maxRetryAfterMs: Infinity',
      { 'Retry-After': '1704067200' },
      { maxRetryAfterMs: Infinity },
    ],
    ['X-RateLimit-Retry-After: 1704067200', { 'X-RateLimit-Retry-After': '1704067200' }, {}],
    ['an RFC 850 date 49 years ahead', { 'Retry-After': rfc850(fortyNineYears) }, {}],
    [
      'an RFC 850 date 49 years ahead, maxRetryAfterMs: Infinity',
      { 'Retry-After': rfc850(fortyNineYears) },
      { maxRetryAfterMs: Infinity },
    ],
    [
      'an IMF-fixdate 49 years ahead',
      { 'Retry-After': new Date(fortyNineYears).toUTCString() },
      {},
    ],
    ['an asctime date 49 years ahead', { 'Retry-After': asctime(fortyNineYears) }, {}],
    [
      'Retry-After of 400 digits',
      { 'Retry-After': '9'.repeat(400) },
      { maxRetryAfterMs: Infinity },
    ],
    [
      'Retry-After-Ms of 30 days',
      { 'Retry-After-Ms': String(30 * DAY_MS) },
      { maxRetryAfterMs: Infinity },
    ],
    ['X-Ms-Retry-After-Ms of 2 minutes', { 'X-Ms-Retry-After-Ms': '120000' }, {}],
    // A quota's reset is the wait of a 429 that says no other: one in 30 days asks for 30 days.
    [
      'a spent quota that resets in 30 days (RateLimit-Reset: 2592000, express-rate-limit draft-6)',
      { 'RateLimit-Remaining': '0', 'RateLimit-Reset': '2592000' },
      {},
    ],
    [
      'RateLimit: limit=10, remaining=0, reset=2592000 (draft 7)',
      { RateLimit: 'limit=10, remaining=0, reset=2592000', 'RateLimit-Policy': '10;w=60' },
      { maxRetryAfterMs: Infinity },
    ],
    [
      "X-RateLimit-Reset a Unix time 30 days ahead (GitHub's form)",
      { 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': String(START / 1000 + 30 * 86_400) },
      {},
    ],
  ])('%s', async (_, headers, options) => {
    const { client, sent } = throttledOnce(headers, options);
    const outcome = await settle(client.get('/items'));
    expect(stopReasonOf(outcome.error)).toBe('retry-after-too-long');
    expect(sent).toEqual([START]);
    // The call stopped at once: it did not wait, nor send again later.
    await jest.advanceTimersByTimeAsync(2 * DAY_MS);
    expect(sent).toEqual([START]);
  });

  it('a value that looks like garbage but is a wait ("10", seed -1365140659) past maxRetryAfterMs: 5000 stops too', async () => {
    const { client, sent } = throttledOnce({ 'retry-after': '10' }, { maxRetryAfterMs: 5000 });
    const outcome = await settle(client.get('/items'));
    expect(stopReasonOf(outcome.error)).toBe('retry-after-too-long');
    expect(sent).toEqual([START]);
  });

  it('the forms the parser must read are the ones sent', () => {
    expect(rfc850(Date.UTC(1994, 10, 6, 8, 49, 37))).toBe('Sunday, 06-Nov-94 08:49:37 GMT');
    expect(asctime(Date.UTC(1994, 10, 6, 8, 49, 37))).toBe('Sun Nov  6 08:49:37 1994');
  });

  it("the origin's hold ignores the absurd value: the next call goes within a second", async () => {
    const { client, sent } = throttledOnce({ 'Retry-After': '2592000' });
    await settle(client.get('/items'));
    const next = await settle(client.get('/items'));
    expect(next.value).toMatchObject({ status: 200 });
    expect(sent).toHaveLength(2);
    expect((sent[1] as number) - START).toBeLessThanOrEqual(2000);
  });

  it.each<[string, Record<string, string>]>([
    ['a spent quota', { 'RateLimit-Remaining': '0', 'RateLimit-Reset': '2592000' }],
    ['a 429 with a reset alone', { 'RateLimit-Reset': '2592000' }],
  ])(
    'nor does the 30-day reset of %s hold it: the next call goes within a second',
    async (_, headers) => {
      const { client, sent } = throttledOnce(headers);
      await settle(client.get('/items'));
      const next = settle(client.get('/items'));
      await jest.advanceTimersByTimeAsync(2000);
      expect((await next).value).toMatchObject({ status: 200 });
      expect(sent).toHaveLength(2);
      expect((sent[1] as number) - START).toBeLessThanOrEqual(2000);
    },
  );
});

describe('a wait that is read is honoured to the millisecond', () => {
  it.each<[string, Record<string, string>, number]>([
    ['Retry-After: 3', { 'Retry-After': '3' }, 3000],
    ['fractional Retry-After: 2.5 (Shopify, Discord)', { 'Retry-After': '2.5' }, 2500],
    ['Retry-After-Ms: 1500 (OpenAI, Azure)', { 'Retry-After-Ms': '1500' }, 1500],
    ['X-Ms-Retry-After-Ms: 2500 (Azure)', { 'X-Ms-Retry-After-Ms': '2500' }, 2500],
    [
      'Retry-After-Ms is preferred to Retry-After',
      { 'Retry-After-Ms': '1500', 'Retry-After': '4' },
      1500,
    ],
    [
      'Retry-After-Ms is preferred, even when shorter',
      { 'Retry-After-Ms': '4500', 'Retry-After': '1' },
      4500,
    ],
    [
      'garbage Retry-After-Ms falls to Retry-After',
      { 'Retry-After-Ms': 'soon', 'Retry-After': '2' },
      2000,
    ],
    ['X-RateLimit-Retry-After: 2', { 'X-RateLimit-Retry-After': '2' }, 2000],
    ['an HTTP-date 5 s ahead', { 'Retry-After': new Date(START + 5000).toUTCString() }, 5000],
  ])('%s: sent again after the asked wait, not a millisecond sooner', async (_, headers, asked) => {
    const { client, sent } = throttledOnce(headers);
    const call = client.get('/items');
    await jest.advanceTimersByTimeAsync(asked - 1);
    expect(sent).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(sent).toHaveLength(2);
    await expect(call).resolves.toMatchObject({ status: 200 });
  });
});

/**
 * A `Retry-After` (or a form of it, or a spent quota's reset) a server might send, with the
 * headers that go `also`, and the wait it asks, if any.
 */
type Sent = {
  readonly name: string;
  readonly value: string;
  readonly askedMs?: number;
  readonly also?: Record<string, string>;
};

const seconds = fc
  .nat({ max: 200_000 })
  .map((n): Sent => ({ name: 'retry-after', value: String(n), askedMs: n * 1000 }));
const fraction = fc.nat({ max: 200_000_000 }).map(
  (ms): Sent => ({
    name: 'retry-after',
    value: (ms / 1000).toFixed(3),
    askedMs: ms,
  }),
);
const millis = fc
  .tuple(fc.constantFrom('retry-after-ms', 'x-ms-retry-after-ms'), fc.nat({ max: 200_000_000 }))
  .map(([name, ms]): Sent => ({ name, value: String(ms), askedMs: ms }));
const huge = fc
  .stringMatching(/^[1-9]\d{6,400}$/)
  .map((value): Sent => ({ name: 'retry-after', value, askedMs: Number(value) * 1000 }));
const epochs = fc
  .constantFrom('retry-after', 'x-ratelimit-retry-after')
  .map((name): Sent => ({ name, value: '1704067200', askedMs: 1704067200_000 }));
const dates = fc
  .tuple(
    fc.integer({ min: -DAY_MS, max: 60 * 365 * DAY_MS }),
    fc.constantFrom<(t: number) => string>((t) => new Date(t).toUTCString(), rfc850, asctime),
  )
  // An RFC 850 year is two digits: 60 years ahead reads as 40 years ago (a wait of 0).
  .map(([offset, form]): Sent => {
    const at = Math.floor((START + offset) / 1000) * 1000;
    const value = form(at);
    const lost = form === rfc850 && new Date(at).getUTCFullYear() > 2076;
    return { name: 'retry-after', value, askedMs: lost ? 0 : Math.max(0, at - START) };
  });
const garbage = fc
  .tuple(fc.constantFrom('retry-after', 'retry-after-ms', 'x-ratelimit-retry-after'), fc.string())
  .map(([name, value]): Sent => ({ name, value }));
// A spent quota's reset, the wait of a 429 that names no other: in seconds (express-rate-limit's
// draft 6 and draft 7 forms) or as a Unix time (GitHub's), from none to 30 years.
const quotaResets = fc
  .tuple(
    fc.constantFrom('draft-6', 'draft-7', 'github'),
    fc.oneof(fc.nat({ max: 200_000 }), fc.integer({ min: 86_401, max: 999_999_999 })),
  )
  .map(([form, s]): Sent => {
    const askedMs = s * 1000;
    if (form === 'draft-6') {
      return {
        name: 'ratelimit-reset',
        value: String(s),
        askedMs,
        also: { 'ratelimit-remaining': '0' },
      };
    }
    if (form === 'draft-7') {
      return { name: 'ratelimit', value: `limit=10, remaining=0, reset=${s}`, askedMs };
    }
    const value = String(START / 1000 + s);
    return { name: 'x-ratelimit-reset', value, askedMs, also: { 'x-ratelimit-remaining': '0' } };
  });

describe('property: whatever Retry-After, or quota reset, a server sends', () => {
  it('the next attempt is never sent before the asked time, or the call stops with retry-after-too-long; the hold stays bounded', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(seconds, fraction, millis, huge, epochs, dates, garbage, quotaResets),
        fc.constantFrom(60_000, Infinity, 5_000),
        async (header, maxRetryAfterMs) => {
          jest.setSystemTime(START);
          const { client, sent, detach } = throttledOnce(
            { [header.name]: header.value, ...header.also },
            {
              maxRetryAfterMs,
            },
          );
          const start = Date.now();
          const outcome = await settle(client.get('/items'));
          const bound = Math.min(maxRetryAfterMs, DAY_MS);
          // What a generated value asks is known, but for the garbage, which may happen to be
          // a valid wait ("10"): either way it retries no sooner, or it stops.
          const asked = header.askedMs;
          if (outcome.error) {
            expect(stopReasonOf(outcome.error)).toBe('retry-after-too-long');
            expect(sent).toHaveLength(1);
            expect(asked === undefined || asked > bound).toBe(true);
          } else {
            expect(outcome.value).toMatchObject({ status: 200 });
            expect(sent).toHaveLength(2);
            expect((sent[1] as number) - start).toBeGreaterThanOrEqual(asked ?? 0);
            expect(asked === undefined || asked <= bound).toBe(true);
          }
          // Load control's hold: the next call is sent within a day, or fails at once saying
          // it would be (never parked longer, never told Infinity).
          const nextAt = Date.now();
          const next = await settle(client.get('/items', { retry: false }));
          const held = next.error
            ? ((failureIn(next).config?.retryState as RetryState | undefined)?.retryAfterMs ?? 0)
            : (sent[sent.length - 1] as number) - nextAt;
          expect(held).toBeGreaterThanOrEqual(0);
          expect(held).toBeLessThanOrEqual(DAY_MS);
          detach();
        },
      ),
      { numRuns: 120 },
    );
  }, 60_000);
});
