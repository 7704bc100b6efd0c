import { serverAdvice } from '../../src/http/server-signals';
import {
  gaveUpOnOverload,
  inboundAttempt,
  inboundDeadlineMs,
} from '../../src/server/layer-signals';

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

describe('inboundDeadlineMs: the deadline a server layer takes from an inbound request', () => {
  const MAX = 60_000;
  it.each<[string, string | undefined, string | undefined, number | undefined]>([
    ['none', undefined, undefined, undefined],
    ['Request-Deadline-Ms', '1500', undefined, 1500],
    ['with spaces', ' 1500 ', undefined, 1500],
    ['above the cap: cut to it', '86400000', undefined, MAX],
    ['zero: a deadline already spent (issue 23)', '0', undefined, 0],
    ['negative: ignored', '-5', undefined, undefined],
    ['fractional: ignored', '1.5', undefined, undefined],
    ['not a number: ignored', 'soon', undefined, undefined],
    ['two values joined: ignored', '100, 200', undefined, undefined],
    ['absurdly long digits: cut to the cap', '1'.repeat(40), undefined, MAX],
    ['10 KB of digits: cut to the cap', '9'.repeat(10_240), undefined, MAX],
    ['grpc-timeout in seconds', undefined, '2S', 2000],
    ['grpc-timeout in milliseconds', undefined, '750m', 750],
    ['grpc-timeout in microseconds', undefined, '2500000u', 2500],
    ['grpc-timeout in hours: capped', undefined, '1H', MAX],
    ['grpc-timeout below 1 ms: all but spent', undefined, '10n', 10 * 0.000_001],
    ['grpc-timeout of 0: spent', undefined, '0m', 0],
    ['grpc-timeout of 9 digits: malformed', undefined, '123456789m', undefined],
    ['grpc-timeout with a bad unit', undefined, '5s', undefined],
    ['ours wins over grpc-timeout', '300', '5S', 300],
    ['a bad one of ours is not replaced by grpc-timeout', 'x', '5S', undefined],
  ])('%s', (_, ours, grpc, expected) => {
    expect(inboundDeadlineMs(ours, grpc, MAX)).toBe(expected);
  });
});

describe('inboundAttempt', () => {
  it.each<[string | undefined, number | undefined]>([
    [undefined, undefined],
    ['1', 1],
    ['4', 4],
    [' 2 ', 2],
    ['0', undefined],
    ['-1', undefined],
    ['2.5', undefined],
    ['9999999', undefined],
    ['', undefined],
  ])('%p → %p', (value, expected) => {
    expect(inboundAttempt(value)).toBe(expected);
  });
});

describe('gaveUpOnOverload: does a failed outgoing call mean "the layer below gave up"?', () => {
  const failed = (stopReason: string | undefined, status?: number, code?: string) => ({
    code,
    response: status === undefined ? undefined : { status },
    config: { retryState: stopReason === undefined ? {} : { stopReason } },
  });

  /** The same failure, stopped after 3 retries of its own. */
  const afterRetries = <T extends { config: { retryState: object } }>(error: T): T => ({
    ...error,
    config: { retryState: { ...error.config.retryState, retryCount: 3 } },
  });

  it.each<[string, unknown, boolean]>([
    ['budget exhausted', failed('budget-exhausted', 503), true],
    ['circuit open', failed('circuit-open', undefined, 'ERR_CIRCUIT_OPEN'), true],
    [
      'the gate paced it past its deadline',
      failed('deadline', undefined, 'ERR_RATE_LIMITED'),
      true,
    ],
    ['the gate held it past its deadline', failed('deadline', undefined, 'ERR_CIRCUIT_OPEN'), true],
    ['retries exhausted on 503', failed('retries-exhausted', 503), true],
    ['retries exhausted on 429', failed('retries-exhausted', 429), true],
    [
      'retries exhausted on a refused connection, after retries here',
      afterRetries(failed('retries-exhausted', undefined, 'ECONNREFUSED')),
      true,
    ],
    [
      'retries exhausted on 502, after retries here',
      afterRetries(failed('retries-exhausted', 502)),
      true,
    ],
    ['retries exhausted on 500, no retry here', failed('retries-exhausted', 500), false],
    [
      'retries exhausted on a reset, no retry here',
      failed('retries-exhausted', undefined, 'ECONNRESET'),
      false,
    ],
    ['the layer below gave up (503)', failed('upstream-gave-up', 503), true],
    ['a 402 that said not to retry', failed('upstream-gave-up', 402), false],
    ['not retryable (404)', failed('not-retryable', 404), false],
    ['canceled', failed('canceled', undefined, 'ERR_CANCELED'), false],
    ['its own deadline', failed('deadline', undefined, 'ECONNABORTED'), false],
    ['a plain error', new Error('boom'), false],
    ['not an error', 'boom', false],
    ['nothing', undefined, false],
  ])('%s → %p', (_, error, expected) => {
    expect(gaveUpOnOverload(error)).toBe(expected);
  });

  it('counts a call stopped by its deadline when the inbound deadline is spent', () => {
    expect(gaveUpOnOverload(failed('deadline', undefined, 'ECONNABORTED'), true)).toBe(true);
  });

  it('finds the call error under the cause of an error the handler wrapped', () => {
    const wrapped = new Error('could not load the basket', {
      cause: failed('retries-exhausted', 503),
    });
    expect(gaveUpOnOverload(wrapped)).toBe(true);
    expect(gaveUpOnOverload(new Error('x', { cause: failed('not-retryable', 404) }))).toBe(false);
  });

  it('a refused connection (on the cause, as the fetch adapter gives it) marks the answer only after retries here', () => {
    const error = {
      ...failed('retries-exhausted', undefined, 'ERR_NETWORK'),
      cause: { code: 'ECONNREFUSED' },
    };
    expect(gaveUpOnOverload(error)).toBe(false);
    expect(gaveUpOnOverload(afterRetries(error))).toBe(true);
  });
});
