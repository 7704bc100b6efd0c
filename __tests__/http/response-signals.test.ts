import type { AxiosResponse } from 'axios';
import { isPlainSuccess, signalsOf } from '../../src/http/response-signals';

const NOW = Date.UTC(2026, 10, 30, 12, 0, 0);
const response = (status: number, headers: Record<string, string>) =>
  ({ status, headers }) as unknown as AxiosResponse;

describe('signalsOf: the wait of the call and the wait of the hold', () => {
  it("a wait past a day is the call's (it stops on it), never the hold's", () => {
    const signals = signalsOf(response(429, { 'Retry-After': '2592000' }), NOW);
    expect(signals.askedMs).toBe(2_592_000_000);
    expect(signals.waitMs).toBeUndefined();
  });

  it("an absurd Retry-After leaves the hold to the quota's reset", () => {
    const signals = signalsOf(
      response(429, {
        'Retry-After': '1704067200',
        'RateLimit-Remaining': '0',
        'RateLimit-Reset': '5',
      }),
      NOW,
    );
    expect(signals.askedMs).toBe(1_704_067_200_000);
    expect(signals.waitMs).toBe(5000);
  });

  it('a wait within a day is both', () => {
    const signals = signalsOf(response(429, { 'Retry-After-Ms': '1500', 'Retry-After': '9' }), NOW);
    expect([signals.askedMs, signals.waitMs]).toEqual([1500, 1500]);
  });

  it('with no wait said, the reset is both', () => {
    const signals = signalsOf(
      response(429, { 'RateLimit-Remaining': '0', 'RateLimit-Reset': '360' }),
      NOW,
    );
    expect([signals.askedMs, signals.waitMs]).toEqual([360_000, 360_000]);
  });

  it("exposes Discord's bucket", () => {
    const signals = signalsOf(
      response(200, { 'X-RateLimit-Remaining': '4', 'X-RateLimit-Bucket': 'abcd1234' }),
      NOW,
    );
    expect(signals.rateLimit?.bucket).toBe('abcd1234');
  });
});

describe('isPlainSuccess', () => {
  it.each([
    ['X-Shopify-Shop-Api-Call-Limit', { 'X-Shopify-Shop-Api-Call-Limit': '1/40' }],
    ['anthropic-ratelimit-requests-remaining', { 'anthropic-ratelimit-requests-remaining': '3' }],
    ['x-ratelimit-remaining-requests', { 'x-ratelimit-remaining-requests': '3' }],
    ['X-RateLimit-Reset-After', { 'X-RateLimit-Reset-After': '1.5' }],
    ['x-rate-limit-remaining', { 'x-rate-limit-remaining': '3' }],
    ['RateLimit-Policy', { 'RateLimit-Policy': '10;w=1' }],
  ])('a success with %s says something of limits', (_, headers) => {
    expect(isPlainSuccess(response(200, headers))).toBe(false);
  });

  it('a success with other headers says nothing', () => {
    expect(isPlainSuccess(response(200, { 'content-type': 'text/plain', date: 'x' }))).toBe(true);
    expect(isPlainSuccess(response(429, {}))).toBe(false);
  });
});
