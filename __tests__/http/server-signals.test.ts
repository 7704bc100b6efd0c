import { serverAdvice } from '../../src/http/server-signals';

const headers =
  (given: Record<string, string>) =>
  (name: string): string | undefined =>
    given[name];

describe('serverAdvice: what a failed response says of retrying it', () => {
  it.each<[string, Record<string, string>, boolean | number | undefined]>([
    ['nothing', {}, undefined],
    ['Stripe-Should-Retry: false', { 'stripe-should-retry': 'false' }, false],
    ['Stripe-Should-Retry: true', { 'stripe-should-retry': 'true' }, true],
    ['Stripe-Should-Retry with another value', { 'stripe-should-retry': 'maybe' }, undefined],
    ['grpc-retry-pushback-ms: 250', { 'grpc-retry-pushback-ms': '250' }, 250],
    ['grpc-retry-pushback-ms: 0', { 'grpc-retry-pushback-ms': '0' }, 0],
    ['a negative pushback', { 'grpc-retry-pushback-ms': '-1' }, false],
    ['a malformed pushback', { 'grpc-retry-pushback-ms': '1.5s' }, false],
    ['a fractional pushback', { 'grpc-retry-pushback-ms': '2.5' }, false],
    [
      'false wins over a pushback',
      { 'stripe-should-retry': 'false', 'grpc-retry-pushback-ms': '10' },
      false,
    ],
    [
      'a pushback wins over true (it says when)',
      { 'stripe-should-retry': 'true', 'grpc-retry-pushback-ms': '10' },
      10,
    ],
    [
      'a negative pushback wins over true',
      { 'stripe-should-retry': 'true', 'grpc-retry-pushback-ms': '-5' },
      false,
    ],
  ])('%s', (_, given, expected) => {
    expect(serverAdvice(headers(given))).toBe(expected);
  });
});
