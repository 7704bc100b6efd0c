// What a server layer reads off an inbound request, and whether an outgoing call gave up on
// overload: pure functions, checked here without a server (the loopback suites check the wiring).

import { retryLayer } from '../../src/server';
import {
  gaveUpOnOverload,
  inboundAttempt,
  inboundDeadlineMs,
} from '../../src/server/layer-signals';

/**
 * An outgoing call that failed, stopped for `stopReason`: with a response of `status`, after
 * `retryCount` retries here, the gate's `retryAfterMs`, and any other fields (`code`, `cause`).
 */
const failed = (
  stopReason: string,
  {
    status,
    retryCount,
    retryAfterMs,
    ...fields
  }: {
    status?: number;
    retryCount?: number;
    retryAfterMs?: number;
    code?: string;
    cause?: unknown;
  } = {},
) => ({
  ...fields,
  ...(status === undefined ? {} : { response: { status } }),
  config: {
    retryState: {
      stopReason,
      ...(retryCount === undefined ? {} : { retryCount }),
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    },
  },
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
    ['grpc-timeout in seconds, two digits', undefined, '12S', 12_000],
    ['grpc-timeout with spaces', undefined, ' 5S ', 5000],
    ['grpc-timeout in milliseconds', undefined, '750m', 750],
    ['grpc-timeout in microseconds', undefined, '2500000u', 2500],
    ['grpc-timeout in hours: capped', undefined, '1H', MAX],
    ['grpc-timeout below 1 ms: all but spent', undefined, '10n', 10 * 0.000_001],
    ['grpc-timeout of 0: spent', undefined, '0m', 0],
    ['grpc-timeout of 8 digits (the most it takes): capped', undefined, '12345678m', MAX],
    ['grpc-timeout of 9 digits: malformed', undefined, '123456789m', undefined],
    ['grpc-timeout with a bad unit', undefined, '5s', undefined],
    ['grpc-timeout with text before it: malformed', undefined, 'x5S', undefined],
    ['grpc-timeout with text after its unit: malformed', undefined, '5Sx', undefined],
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
  it.each<[string, unknown, boolean]>([
    ['ERR_RATE_LIMITED', { code: 'ERR_RATE_LIMITED' }, true],
    ['ERR_CIRCUIT_OPEN', { code: 'ERR_CIRCUIT_OPEN' }, true],
    ['another code', { code: 'ECONNRESET' }, false],
    ['the gate paced it past its deadline', failed('deadline', { code: 'ERR_RATE_LIMITED' }), true],
    ['the gate held it past its deadline', failed('deadline', { code: 'ERR_CIRCUIT_OPEN' }), true],
    ['budget-exhausted', failed('budget-exhausted'), true],
    ['circuit-open (the gate, with its wait)', failed('circuit-open', { retryAfterMs: 800 }), true],
    [
      'the gate held a retry past its deadline: the 503 before it, its wait set (issue 21)',
      failed('deadline', { status: 503, retryAfterMs: 640 }),
      true,
    ],
    [
      'the gate held a retry past its deadline: the refusal before it, a wait of 0',
      failed('deadline', { code: 'ECONNREFUSED', retryAfterMs: 0 }),
      true,
    ],
    [
      'a deadline on a 500, no retry here, no gate stop',
      failed('deadline', { status: 500 }),
      false,
    ],
    [
      'a deadline on a 503, no retry here: its Retry-After ended past the deadline (issue 21)',
      failed('deadline', { status: 503 }),
      true,
    ],
    ['a deadline on a 429, no retry here', failed('deadline', { status: 429 }), true],
    [
      'a deadline after a retry here, a reset (retried from above too, it would multiply)',
      failed('deadline', { code: 'ECONNRESET', retryCount: 1 }),
      true,
    ],
    ['upstream-gave-up on a 429', failed('upstream-gave-up', { status: 429 }), true],
    ['upstream-gave-up on a 500', failed('upstream-gave-up', { status: 500 }), true],
    ['upstream-gave-up on a 503', failed('upstream-gave-up', { status: 503 }), true],
    ['upstream-gave-up on a 499', failed('upstream-gave-up', { status: 499 }), false],
    [
      'upstream-gave-up on a 402 that said not to retry',
      failed('upstream-gave-up', { status: 402 }),
      false,
    ],
    ['retries-exhausted on a 429', failed('retries-exhausted', { status: 429 }), true],
    ['retries-exhausted on a 503', failed('retries-exhausted', { status: 503 }), true],
    [
      'retries-exhausted on a 500, no retry here',
      failed('retries-exhausted', { status: 500 }),
      false,
    ],
    [
      'retries-exhausted on a 502 after a retry here (a handler answers its own 502)',
      failed('retries-exhausted', { status: 502, retryCount: 1 }),
      true,
    ],
    [
      'retries-exhausted on a 500 after 3 retries',
      failed('retries-exhausted', { status: 500, retryCount: 3 }),
      true,
    ],
    [
      'retries-exhausted, refused, after 3 retries',
      failed('retries-exhausted', { code: 'ECONNREFUSED', retryCount: 3 }),
      true,
    ],
    [
      'retries-exhausted, reset, after a retry',
      failed('retries-exhausted', { code: 'ECONNRESET', retryCount: 1 }),
      true,
    ],
    // With no retry here (`retries: 0`), the layer above is the one to retry.
    [
      'retries-exhausted, refused, no retry here',
      failed('retries-exhausted', { code: 'ECONNREFUSED', retryCount: 0 }),
      false,
    ],
    [
      'retries-exhausted, reset, no retry here',
      failed('retries-exhausted', { code: 'ECONNRESET' }),
      false,
    ],
    ['retries-exhausted, no status, no code', failed('retries-exhausted'), false],
    ['deadline (the inbound deadline not spent)', failed('deadline'), false],
    ['canceled (the inbound deadline not spent)', failed('canceled'), false],
    ['not-retryable on a 404', failed('not-retryable', { status: 404 }), false],
    [
      'not-retryable, over a cause that gave up (not followed)',
      failed('not-retryable', { cause: failed('budget-exhausted') }),
      false,
    ],
    ['a plain error', new Error('boom'), false],
    ['not an error', 'boom', false],
    ['nothing', undefined, false],
    ['null', null, false],
    ['a config without retryState', { config: {} }, false],
  ])('%s: %p', (_label, error, expected) => {
    expect(gaveUpOnOverload(error)).toBe(expected);
  });

  it('counts a deadline or a cancel when the inbound deadline is spent', () => {
    expect(gaveUpOnOverload(failed('deadline'), true)).toBe(true);
    expect(gaveUpOnOverload(failed('canceled'), true)).toBe(true);
  });

  it('finds the call error under the cause of an error the handler wrapped', () => {
    const wrapped = new Error('could not load the basket', {
      cause: failed('retries-exhausted', { status: 503 }),
    });
    expect(gaveUpOnOverload(wrapped)).toBe(true);
    expect(
      gaveUpOnOverload(new Error('x', { cause: failed('not-retryable', { status: 404 }) })),
    ).toBe(false);
  });

  it('follows causes five levels down, no further, and ends on a cycle', () => {
    const wrapped = (levels: number): object => {
      let error: object = failed('circuit-open', { retryAfterMs: 800 });
      for (let i = 0; i < levels; i++) error = { cause: error };
      return error;
    };
    expect(gaveUpOnOverload(wrapped(4))).toBe(true);
    expect(gaveUpOnOverload(wrapped(5))).toBe(false);
    const cycle: { cause?: unknown } = {};
    cycle.cause = cycle;
    expect(gaveUpOnOverload(cycle)).toBe(false);
  });

  it('a refused connection (on the cause, as the fetch adapter gives it) marks the answer only after retries here', () => {
    const refused = { code: 'ERR_NETWORK', cause: { code: 'ECONNREFUSED' } };
    expect(gaveUpOnOverload(failed('retries-exhausted', refused))).toBe(false);
    expect(gaveUpOnOverload(failed('retries-exhausted', { ...refused, retryCount: 3 }))).toBe(true);
  });
});

describe('retryLayer options at their bounds', () => {
  it('takes maxDeadlineMs: 1 and marginMs: 0', () => {
    expect(() => retryLayer({ maxDeadlineMs: 1, marginMs: 0 })).not.toThrow();
  });
});
