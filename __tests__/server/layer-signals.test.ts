// What a server layer reads off an inbound request, and whether an outgoing call gave up on
// overload: pure functions, checked here without a server (the loopback suites check the wiring).

import { retryLayer } from '../../src/server';
import {
  gaveUpOnOverload,
  inboundAttempt,
  inboundDeadlineMs,
} from '../../src/server/layer-signals';

const stopped = (stopReason: string, fields: object = {}) => ({
  config: { retryState: { stopReason } },
  ...fields,
});

/** A call that stopped with its retries used up after `retryCount` retries. */
const retried = (retryCount: number, fields: object) => ({
  config: { retryState: { stopReason: 'retries-exhausted', retryCount } },
  ...fields,
});

describe('inboundDeadlineMs and inboundAttempt', () => {
  it.each<[string | undefined, string | undefined, number | undefined]>([
    [' 500 ', undefined, 500],
    [undefined, ' 5S ', 5000],
    [undefined, '12S', 12_000],
    [undefined, '12345678m', 60_000],
    [undefined, 'x5S', undefined],
    [undefined, '5Sx', undefined],
    [undefined, '123456789m', undefined],
  ])('Request-Deadline-Ms %p, grpc-timeout %p: %p', (header, grpc, expected) => {
    expect(inboundDeadlineMs(header, grpc, 60_000)).toBe(expected);
  });

  it('reads an attempt number with spaces around it', () => {
    expect(inboundAttempt(' 2 ')).toBe(2);
  });
});

describe('gaveUpOnOverload', () => {
  it.each<[string, unknown, boolean]>([
    ['ERR_RATE_LIMITED', { code: 'ERR_RATE_LIMITED' }, true],
    ['ERR_CIRCUIT_OPEN', { code: 'ERR_CIRCUIT_OPEN' }, true],
    ['another code', { code: 'ECONNRESET' }, false],
    ['budget-exhausted', stopped('budget-exhausted'), true],
    ['circuit-open', stopped('circuit-open'), true],
    ['upstream-gave-up on a 429', stopped('upstream-gave-up', { response: { status: 429 } }), true],
    ['upstream-gave-up on a 500', stopped('upstream-gave-up', { response: { status: 500 } }), true],
    ['upstream-gave-up on a 503', stopped('upstream-gave-up', { response: { status: 503 } }), true],
    [
      'upstream-gave-up on a 499',
      stopped('upstream-gave-up', { response: { status: 499 } }),
      false,
    ],
    [
      'retries-exhausted on a 429',
      stopped('retries-exhausted', { response: { status: 429 } }),
      true,
    ],
    [
      'retries-exhausted on a 503',
      stopped('retries-exhausted', { response: { status: 503 } }),
      true,
    ],
    [
      'retries-exhausted on a 500',
      stopped('retries-exhausted', { response: { status: 500 } }),
      false,
    ],
    [
      'retries-exhausted on a 502 after a retry here (a handler answers its own 502)',
      retried(1, { response: { status: 502 } }),
      true,
    ],
    ['retries-exhausted on a 500 after 3 retries', retried(3, { response: { status: 500 } }), true],
    ['retries-exhausted, refused, after 3 retries', retried(3, { code: 'ECONNREFUSED' }), true],
    ['retries-exhausted, reset, after a retry', retried(1, { code: 'ECONNRESET' }), true],
    // With no retry here (`retries: 0`), the layer above is the one to retry.
    ['retries-exhausted, refused, no retry here', retried(0, { code: 'ECONNREFUSED' }), false],
    ['retries-exhausted, reset', stopped('retries-exhausted', { code: 'ECONNRESET' }), false],
    ['retries-exhausted, no status, no code', stopped('retries-exhausted'), false],
    ['deadline (the inbound deadline not spent)', stopped('deadline'), false],
    ['canceled (the inbound deadline not spent)', stopped('canceled'), false],
    [
      'not-retryable, over a cause that gave up (not followed)',
      stopped('not-retryable', { cause: stopped('budget-exhausted') }),
      false,
    ],
    ['a wrapper over a budget stop', { cause: stopped('budget-exhausted') }, true],
    ['null', null, false],
    ['a config without retryState', { config: {} }, false],
  ])('%s: %p', (_label, error, expected) => {
    expect(gaveUpOnOverload(error)).toBe(expected);
  });

  it('counts a deadline or a cancel when the inbound deadline is spent', () => {
    expect(gaveUpOnOverload(stopped('deadline'), true)).toBe(true);
    expect(gaveUpOnOverload(stopped('canceled'), true)).toBe(true);
  });

  it('follows causes five levels down, no further, and ends on a cycle', () => {
    const wrapped = (levels: number): object => {
      let error: object = stopped('circuit-open');
      for (let i = 0; i < levels; i++) error = { cause: error };
      return error;
    };
    expect(gaveUpOnOverload(wrapped(4))).toBe(true);
    expect(gaveUpOnOverload(wrapped(5))).toBe(false);
    const cycle: { cause?: unknown } = {};
    cycle.cause = cycle;
    expect(gaveUpOnOverload(cycle)).toBe(false);
  });
});

describe('retryLayer options at their bounds', () => {
  it('takes maxDeadlineMs: 1 and marginMs: 0', () => {
    expect(() => retryLayer({ maxDeadlineMs: 1, marginMs: 0 })).not.toThrow();
  });
});
