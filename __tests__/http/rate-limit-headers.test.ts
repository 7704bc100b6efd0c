import fc from 'fast-check';
import { readRateLimit, throttleStatus } from '../../src/http/rate-limit-headers';
import { serverWait } from '../../src/http/retry-after';

const NOW = Date.UTC(2026, 10, 30, 12, 0, 0);
const read = (headers: Record<string, string>, now = NOW) =>
  readRateLimit((name) => headers[name], now);

describe('readRateLimit', () => {
  it.each([
    ['draft 7 dictionary', { ratelimit: 'limit=100, remaining=0, reset=30' }, 0, 30_000, 100],
    ['draft 7, spaces and order', { ratelimit: 'reset=5,remaining=7, limit=10' }, 7, 5000, 10],
    ['draft 8 policy list', { ratelimit: '"default";r=0;t=30' }, 0, 30_000, undefined],
    [
      'draft 8, the policy with least left',
      { ratelimit: '"burst";r=9;t=1, "daily";r=2;t=3600' },
      2,
      3_600_000,
      undefined,
    ],
    ['draft 7, remaining first', { ratelimit: 'remaining=42, limit=100, reset=7' }, 42, 7000, 100],
    [
      'draft 8, spaces before parameters',
      { ratelimit: '"default"; r=15; t=60' },
      15,
      60_000,
      undefined,
    ],
    [
      'draft 8, the policy with least left listed first',
      { ratelimit: '"daily";r=2;t=3600, "burst";r=9;t=1' },
      2,
      3_600_000,
      undefined,
    ],
    ['early drafts', { 'ratelimit-remaining': '4', 'ratelimit-reset': '12' }, 4, 12_000, undefined],
    [
      'X- headers, delta-seconds',
      { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '60' },
      0,
      60_000,
      undefined,
    ],
  ])('%s', (_, headers, remaining, resetMs, limit) => {
    expect(read(headers)).toEqual({ remaining, resetMs, ...(limit ? { limit } : {}) });
  });

  it.each([
    [
      "express-rate-limit's draft 8",
      {
        ratelimit: '"10-in-1sec"; r=9; t=1',
        'ratelimit-policy': '"10-in-1sec"; q=10; w=1; pk=:MTJ:',
      },
      {
        remaining: 9,
        resetMs: 1000,
        limit: 10,
        periodMs: 1000,
        bucket: '"10-in-1sec"; q=10; w=1; pk=:MTJ:',
      },
    ],
    [
      "express-rate-limit's draft 7",
      { ratelimit: 'limit=10, remaining=9, reset=1', 'ratelimit-policy': '10;w=1' },
      { remaining: 9, resetMs: 1000, limit: 10, periodMs: 1000, bucket: '10;w=1' },
    ],
    [
      'the separate limit headers',
      { 'ratelimit-remaining': '3', 'ratelimit-limit': '60', 'x-ratelimit-limit': '99' },
      { remaining: 3, limit: 60 },
    ],
    [
      'GitHub',
      { 'x-ratelimit-remaining': '3', 'x-ratelimit-limit': '5000' },
      { remaining: 3, limit: 5000 },
    ],
  ])('reads the quota itself: %s', (_, headers, expected) => {
    expect(read(headers)).toEqual(expected);
  });

  it("reads GitHub's epoch-seconds reset against the response's Date", () => {
    const reset = String(NOW / 1000 + 90);
    // The server's clock is 30 s behind ours: the reset is 90 s away by its clock.
    const date = new Date(NOW - 30_000).toUTCString();
    expect(
      read({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(Number(reset) - 30), date }),
    ).toEqual({ remaining: 0, resetMs: 90_000 });
    expect(read({ 'x-ratelimit-reset': reset })).toEqual({ resetMs: 90_000 });
  });

  it('reads an epoch in milliseconds as milliseconds, not 54 000 years', () => {
    expect(read({ 'x-ratelimit-reset': String(NOW + 60_000) })).toEqual({ resetMs: 60_000 });
  });

  it('ignores a server Date more than a day off (2001) next to a correct epoch reset', () => {
    const date = 'Mon, 01 Jan 2001 00:00:00 GMT';
    expect(read({ 'x-ratelimit-reset': String(NOW / 1000 + 30), date })).toEqual({
      resetMs: 30_000,
    });
  });

  it.each([
    ['RateLimit-Reset of a year', { 'ratelimit-reset': '31536000' }],
    ['draft 8 t=99999999', { ratelimit: '"default";r=0;t=99999999' }],
    ['an epoch a year ahead', { 'x-ratelimit-reset': String(NOW / 1000 + 31_536_000) }],
    ['400 digits', { 'ratelimit-reset': '9'.repeat(400) }],
    ['a Discord reset-after of 400 digits', { 'x-ratelimit-reset-after': '9'.repeat(400) }],
  ])(
    'reads %s as it says, past a day: no hold obeys it, and a call it throttles stops (never-early.test.ts)',
    (_, headers) => {
      expect(read(headers)?.resetMs).toBeGreaterThan(86_400_000);
    },
  );

  it('reads an epoch already past as no wait', () => {
    expect(read({ 'x-ratelimit-reset': String(NOW / 1000 - 5) })).toEqual({ resetMs: 0 });
  });

  it('prefers the combined field, then RateLimit-*, then X-RateLimit-*', () => {
    expect(
      read({
        ratelimit: 'limit=10, remaining=3, reset=2',
        'ratelimit-remaining': '5',
        'x-ratelimit-remaining': '6',
      }),
    ).toEqual({ remaining: 3, resetMs: 2000, limit: 10 });
    expect(read({ 'ratelimit-remaining': '5', 'x-ratelimit-remaining': '6' })).toEqual({
      remaining: 5,
    });
  });

  it('prefers RateLimit-Reset to X-RateLimit-Reset', () => {
    expect(read({ 'ratelimit-reset': '5', 'x-ratelimit-reset': '60' })).toEqual({ resetMs: 5000 });
  });

  it("names the quota by the dialect's id (GitHub's resource) before the policy's text, bounded", () => {
    const github = { 'x-ratelimit-remaining': '0', 'x-ratelimit-resource': ' core ' };
    expect(read(github)?.bucket).toBe('core');
    expect(read({ ...github, 'ratelimit-policy': '10;w=1' })?.bucket).toBe('core');
    expect(
      read({ ratelimit: 'limit=1, remaining=0, reset=9', 'ratelimit-policy': '1;w=10' })?.bucket,
    ).toBe('1;w=10');
    expect(read({ 'x-ratelimit-remaining': '1' })?.bucket).toBeUndefined();
    expect(
      read({ 'x-ratelimit-remaining': '1', 'x-ratelimit-resource': 'x'.repeat(5000) })?.bucket,
    ).toHaveLength(100);
  });

  it('says nothing when there is nothing', () => {
    expect(read({})).toBeUndefined();
    expect(read({ 'x-ratelimit-limit': '100' })).toBeUndefined();
  });

  it.each([
    ['negative', { 'x-ratelimit-remaining': '-1' }],
    ['a fraction of a count', { 'x-ratelimit-remaining': '1.5' }],
    ['an exponent', { 'ratelimit-reset': '1e3' }],
    ['words', { 'x-ratelimit-reset': 'soon' }],
    ['a field without remaining', { ratelimit: 'limit=100' }],
    ['a policy without r', { ratelimit: '"default";t=30' }],
  ])('ignores malformed values: %s', (_, headers) => {
    expect(read(headers)).toBeUndefined();
  });

  it('never throws and never returns a negative or non-finite value (property)', () => {
    const header = fc.oneof(fc.string(), fc.stringMatching(/^[0-9 ;=,"a-z]{0,30}$/));
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.constantFrom(
            'ratelimit',
            'ratelimit-remaining',
            'ratelimit-reset',
            'x-ratelimit-remaining',
            'x-ratelimit-reset',
            'date',
          ),
          header,
        ),
        (headers) => {
          const limit = read(headers);
          for (const value of [limit?.remaining, limit?.resetMs]) {
            if (value !== undefined) {
              expect(Number.isFinite(value)).toBe(true);
              expect(value).toBeGreaterThanOrEqual(0);
            }
          }
        },
      ),
    );
  });
});

describe('readRateLimit: the dialects of the APIs axios backends call most', () => {
  it.each<[string, Record<string, string>, object]>([
    [
      'Discord: reset-after in fractional seconds, its bucket',
      {
        'x-ratelimit-limit': '5',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(NOW / 1000 + 1.25),
        'x-ratelimit-reset-after': '1.25',
        'x-ratelimit-bucket': 'abcd1234',
      },
      { remaining: 0, resetMs: 1250, limit: 5, bucket: 'abcd1234' },
    ],
    [
      "Discord's epoch reset with a fraction, when reset-after is missing",
      { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW / 1000 + 2.5) },
      { remaining: 0, resetMs: 2500 },
    ],
    [
      'X (Twitter)',
      {
        'x-rate-limit-limit': '900',
        'x-rate-limit-remaining': '0',
        'x-rate-limit-reset': String(NOW / 1000 + 60),
      },
      { remaining: 0, resetMs: 60_000, limit: 900 },
    ],
    [
      "GitHub's resource is the bucket",
      { 'x-ratelimit-remaining': '10', 'x-ratelimit-resource': 'search' },
      { remaining: 10, bucket: 'search' },
    ],
  ])('%s', (_, headers, expected) => {
    expect(read(headers)).toEqual(expected);
  });

  it("Discord's bucket is the quota's id (routes share it only when they announce the same)", () => {
    expect(read({ 'x-ratelimit-remaining': '1', 'x-ratelimit-bucket': 'b' })?.bucket).toBe('b');
  });

  it.each([
    ['an OpenAI reset that is not a duration', { 'x-ratelimit-reset-requests': '60' }],
    ['an OpenAI reset of a thousand hours', { 'x-ratelimit-reset-requests': '1000h' }],
    [
      'an Anthropic reset that is not RFC 3339',
      { 'anthropic-ratelimit-requests-reset': 'Mon, 30 Nov 2026 12:00:30 GMT' },
    ],
    [
      'an Anthropic reset a year ahead',
      { 'anthropic-ratelimit-requests-reset': '2027-11-30T12:00:00Z' },
    ],
    ['a Discord reset-after in words', { 'x-ratelimit-reset-after': 'soon' }],
    ['a Shopify bucket of 0', { 'x-shopify-shop-api-call-limit': '0/0' }],
    ['a Shopify bucket of 0, used', { 'x-shopify-shop-api-call-limit': '5/0' }],
  ])('ignores %s (not valid)', (_, headers) => {
    expect(read(headers)?.resetMs).toBeUndefined();
  });

  /** Headers of one dialect, their values generated: well-formed, near misses, or anything. */
  const dialects: Array<[string, readonly string[], fc.Arbitrary<string>]> = [
    [
      'Discord',
      [
        'x-ratelimit-remaining',
        'x-ratelimit-reset-after',
        'x-ratelimit-reset',
        'x-ratelimit-bucket',
        'date',
      ],
      fc.stringMatching(/^[0-9.]{0,25}$/),
    ],
  ];

  it.each(dialects)(
    '%s: never throws; never negative or NaN; a reset past a day is read as it is, and the hold bounds it (property)',
    (_, names, value) => {
      fc.assert(
        fc.property(
          fc.dictionary(fc.constantFrom(...names), fc.oneof(value, fc.string())),
          (headers) => {
            const limit = read(headers);
            for (const n of [limit?.remaining, limit?.limit]) {
              if (n !== undefined) {
                expect(Number.isFinite(n)).toBe(true);
                expect(n).toBeGreaterThanOrEqual(0);
              }
            }
            // The reset may be past a day, or Infinity (400 digits): a call it throttles stops
            // (never-early.test.ts); what a hold reads of it is bounded.
            if (limit?.resetMs !== undefined) expect(limit.resetMs).toBeGreaterThanOrEqual(0);
            expect(serverWait(limit?.resetMs) ?? 0).toBeLessThanOrEqual(86_400_000);
          },
        ),
      );
    },
  );
});

describe('throttleStatus', () => {
  it("takes GitHub's 403 with nothing remaining for a 429", () => {
    expect(throttleStatus(403, { remaining: 0 })).toBe(429);
    expect(throttleStatus(403, { remaining: 1 })).toBe(403);
    expect(throttleStatus(403, undefined)).toBe(403);
    expect(throttleStatus(404, { remaining: 0 })).toBe(404);
  });

  it("takes GitHub's 403 with a wait (a secondary limit) for a 429", () => {
    expect(throttleStatus(403, undefined, 60_000)).toBe(429);
    expect(throttleStatus(403, undefined, 0)).toBe(429);
    expect(throttleStatus(404, undefined, 60_000)).toBe(404);
  });
});
