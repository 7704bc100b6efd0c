import type { RetryOptions } from '../../src/contract/types';
import {
  DEFAULT_CIRCUIT_BREAKER,
  DEFAULT_IDEMPOTENCY_KEY,
  DEFAULT_OPTIONS,
  DEFAULT_PACING,
  DEFAULT_RETRY_BUDGET,
  resolveClientOptions,
  resolveRequestOptions,
} from '../../src/options/options';

describe('resolveClientOptions: defaults', () => {
  it('fills every default from the one defaults object', () => {
    const { options, budget } = resolveClientOptions();
    expect(options).toEqual(DEFAULT_OPTIONS);
    expect(budget).toEqual(DEFAULT_RETRY_BUDGET);
  });

  it('turns the breaker and pacing on by default, each field overridable or all off', () => {
    expect(resolveClientOptions().circuitBreaker).toEqual(DEFAULT_CIRCUIT_BREAKER);
    expect(resolveClientOptions().pacing).toEqual(DEFAULT_PACING);
    expect(resolveClientOptions({ circuitBreaker: { windowMs: 5000 } }).circuitBreaker).toEqual({
      ...DEFAULT_CIRCUIT_BREAKER,
      windowMs: 5000,
    });
    expect(resolveClientOptions({ pacing: { healthyAfterMs: undefined } }).pacing).toEqual(
      DEFAULT_PACING,
    );
    expect(resolveClientOptions({ circuitBreaker: false, pacing: false })).toMatchObject({
      circuitBreaker: false,
      pacing: false,
    });
    expect(Object.isFrozen(DEFAULT_CIRCUIT_BREAKER) && Object.isFrozen(DEFAULT_PACING)).toBe(true);
  });

  it('documents the defaults the issue fixes', () => {
    expect(DEFAULT_OPTIONS).toEqual({
      retries: 3,
      baseDelayMs: 100,
      maxDelayMs: 20_000,
      random: expect.any(Function),
      statusCodes: [408, 429, 500, 502, 503, 504],
      methods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE'],
      maxRetryAfterMs: 60_000,
      idempotencyKey: false,
    });
    expect(DEFAULT_RETRY_BUDGET).toEqual({ ratio: 0.1, minRetriesPerSecond: 10, windowMs: 10_000 });
    expect(DEFAULT_IDEMPOTENCY_KEY).toMatchObject({
      header: 'Idempotency-Key',
      methods: ['POST', 'PATCH'],
    });
    expect(DEFAULT_IDEMPOTENCY_KEY.generate()).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('freezes the exported defaults, so no caller can change them for everyone', () => {
    for (const frozen of [
      DEFAULT_OPTIONS,
      DEFAULT_OPTIONS.statusCodes,
      DEFAULT_OPTIONS.methods,
      DEFAULT_IDEMPOTENCY_KEY,
      DEFAULT_IDEMPOTENCY_KEY.methods,
      DEFAULT_RETRY_BUDGET,
    ]) {
      expect(Object.isFrozen(frozen)).toBe(true);
    }
  });

  it('draws from Math.random by default, looked up at each draw', () => {
    const stub = jest.spyOn(Math, 'random').mockReturnValue(0.25);
    try {
      expect(resolveClientOptions().options.random()).toBe(0.25);
    } finally {
      stub.mockRestore();
    }
  });

  it('takes the default for each budget field a partial budget omits', () => {
    expect(resolveClientOptions({ retryBudget: { ratio: 0.5 } }).budget).toEqual({
      ...DEFAULT_RETRY_BUDGET,
      ratio: 0.5,
    });
    expect(resolveClientOptions({ retryBudget: false }).budget).toBe(false);
  });

  it('upper-cases methods and expands idempotencyKey: true', () => {
    const { options } = resolveClientOptions({ methods: ['get', 'Post'], idempotencyKey: true });
    expect(options.methods).toEqual(['GET', 'POST']);
    expect(options.idempotencyKey).toBe(DEFAULT_IDEMPOTENCY_KEY);
  });

  it('takes the default for idempotencyKey fields an object omits', () => {
    const { options } = resolveClientOptions({ idempotencyKey: { header: 'X-Request-Id' } });
    expect(options.idempotencyKey).toMatchObject({
      header: 'X-Request-Id',
      methods: ['POST', 'PATCH'],
    });
  });

  it('treats a field set to undefined as not set', () => {
    expect(resolveClientOptions({ retries: undefined }).options.retries).toBe(3);
  });
});

describe('resolveClientOptions: bad options fail with the option name and the allowed range', () => {
  it.each<[string, unknown, RegExp]>([
    ['negative retries', { retries: -1 }, /`retries` must be an integer in \[0, ∞\]; got -1/],
    ['fractional retries', { retries: 1.5 }, /`retries` must be an integer in \[0, ∞\]; got 1.5/],
    ['retries as a string', { retries: '3' }, /`retries` must be an integer.*got "3"/],
    [
      'NaN baseDelayMs',
      { baseDelayMs: Number.NaN },
      /`baseDelayMs` must be a number in \[0, ∞\); got NaN/,
    ],
    [
      'negative maxDelayMs',
      { maxDelayMs: -5 },
      /`maxDelayMs` must be a number in \[0, ∞\); got -5/,
    ],
    [
      'infinite maxDelayMs',
      { maxDelayMs: Infinity },
      /`maxDelayMs` must be a number in \[0, ∞\); got Infinity/,
    ],
    ['random not a function', { random: 0.5 }, /`random` must be a function; got 0.5/],
    [
      'a 404 in statusCodes',
      { statusCodes: [404] },
      /`statusCodes` must be an array of 408, 429, 5xx; got \[404\]/,
    ],
    ['statusCodes not an array', { statusCodes: 503 }, /`statusCodes` must be an array/],
    ['methods not strings', { methods: [1] }, /`methods` must be an array of methods/],
    ['shouldRetry not a function', { shouldRetry: true }, /`shouldRetry` must be a function/],
    [
      'negative maxRetryAfterMs',
      { maxRetryAfterMs: -1 },
      /`maxRetryAfterMs` must be a number in \[0, ∞\]; got -1/,
    ],
    ['zero deadlineMs', { deadlineMs: 0 }, /`deadlineMs` must be a number in \(0, ∞\]; got 0/],
    [
      'idempotencyKey as a string',
      { idempotencyKey: 'yes' },
      /`idempotencyKey` must be a boolean or an object; got "yes"/,
    ],
    [
      'a bad key header name',
      { idempotencyKey: { header: 'Bad Header' } },
      /`idempotencyKey.header` must be a header name/,
    ],
    [
      'a key generate not a function',
      { idempotencyKey: { generate: 'x' } },
      /`idempotencyKey.generate` must be a function/,
    ],
    [
      'an unknown key option',
      { idempotencyKey: { name: 'x' } },
      /unknown option `idempotencyKey.name`; see the options table/,
    ],
    [
      'a budget ratio above 1',
      { retryBudget: { ratio: 1.5 } },
      /`retryBudget.ratio` must be a number in \[0, 1\]; got 1.5/,
    ],
    [
      'a negative budget ratio',
      { retryBudget: { ratio: -0.1 } },
      /`retryBudget.ratio` must be a number in \[0, 1\]; got -0.1/,
    ],
    [
      'a zero budget window',
      { retryBudget: { windowMs: 0 } },
      /`retryBudget.windowMs` must be a number in \(0, ∞\); got 0/,
    ],
    [
      'a budget of true',
      { retryBudget: true },
      /`retryBudget` must be false or an object; got true/,
    ],
    ['a breaker of true', { circuitBreaker: true }, /`circuitBreaker` must be false or an object/],
    [
      'a failure ratio of 0',
      { circuitBreaker: { failureRatio: 0 } },
      /`circuitBreaker.failureRatio` must be a number in \(0, 1\]; got 0/,
    ],
    [
      'a fractional minimum throughput',
      { circuitBreaker: { minimumThroughput: 2.5 } },
      /`circuitBreaker.minimumThroughput` must be an integer in \[1, ∞\); got 2.5/,
    ],
    [
      'a zero break',
      { circuitBreaker: { breakDurationMs: 0 } },
      /`circuitBreaker.breakDurationMs` must be a number in \(0, ∞\); got 0/,
    ],
    [
      'a longest break below the first',
      { circuitBreaker: { breakDurationMs: 5000, maxBreakDurationMs: 1000 } },
      /`circuitBreaker.maxBreakDurationMs` must be a number in \[5000, ∞\); got 1000/,
    ],
    [
      'an unknown breaker option',
      { circuitBreaker: { threshold: 5 } },
      /unknown option `circuitBreaker.threshold`; see the options table/,
    ],
    [
      'onStateChange not a function',
      { circuitBreaker: { onStateChange: 'log' } },
      /`circuitBreaker.onStateChange` must be a function/,
    ],
    [
      'a zero minimum rate',
      { pacing: { minRatePerSecond: 0 } },
      /`pacing.minRatePerSecond` must be a number in \(0, ∞\); got 0/,
    ],
    [
      'a negative growth',
      { pacing: { growthPerSecond: -1 } },
      /`pacing.growthPerSecond` must be a number in \[0, ∞\); got -1/,
    ],
    ['pacing of true', { pacing: true }, /`pacing` must be false or an object; got true/],
    ['onRetry not a function', { onRetry: 'log' }, /`onRetry` must be a function/],
    [
      'a function where a number belongs',
      { retries: () => 3 },
      /`retries` must be an integer.*got a function/,
    ],
    [
      'baseDelayMs as a string',
      { baseDelayMs: '100' },
      /`baseDelayMs` must be a number in \[0, ∞\); got "100"/,
    ],
    [
      'a NaN deadlineMs',
      { deadlineMs: Number.NaN },
      /`deadlineMs` must be a number in \(0, ∞\]; got NaN/,
    ],
    [
      'a 404 among good statuses',
      { statusCodes: [503, 404] },
      /`statusCodes` must be an array of 408/,
    ],
    ['an empty method name', { methods: [''] }, /`methods` must be an array of methods/],
    [
      'a key header that is not a string',
      { idempotencyKey: { header: 5 } },
      /`idempotencyKey.header` must be a header name; got 5/,
    ],
    [
      'a negative minRetriesPerSecond',
      { retryBudget: { minRetriesPerSecond: -1 } },
      /`retryBudget.minRetriesPerSecond` must be a number in \[0, ∞\)/,
    ],
    [
      'an infinite minRetriesPerSecond',
      { retryBudget: { minRetriesPerSecond: Infinity } },
      /`retryBudget.minRetriesPerSecond` must be a number in \[0, ∞\)/,
    ],
    [
      'minRetriesPerSecond as a string',
      { retryBudget: { minRetriesPerSecond: '5' } },
      /`retryBudget.minRetriesPerSecond` must be a number in \[0, ∞\)/,
    ],
    [
      'a budget of null',
      { retryBudget: null },
      /`retryBudget` must be false or an object; got null/,
    ],
    ['a misspelt option', { retires: 3 }, /unknown option `retires` \(did you mean `retries`\?\)/],
    [
      'a singular for a plural',
      { retry: 3 },
      /unknown option `retry` \(did you mean `retries`\?\)/,
    ],
    [
      "another library's name that holds ours",
      { maxRetries: 3 },
      /unknown option `maxRetries` \(did you mean `retries`\?\)/,
    ],
    [
      'the end of our name, without its start',
      { budget: false },
      /unknown option `budget` \(did you mean `retryBudget`\?\)/,
    ],
    [
      'the end of a nested name',
      { breaker: { threshold: 5 } },
      /unknown option `breaker` \(did you mean `circuitBreaker`\?\)/,
    ],
    [
      'the longest shared start, not the first name with the same three letters',
      { maxRetryAfter: 100 },
      /unknown option `maxRetryAfter` \(did you mean `maxRetryAfterMs`\?\)/,
    ],
    [
      'a name in the wrong case',
      { MaxDelayMS: 5 },
      /unknown option `MaxDelayMS` \(did you mean `maxDelayMs`\?\)/,
    ],
    [
      'a nested misspelling, by its full path',
      { circuitBreaker: { breakDurationMS: 5, windowMS: 1 } },
      /unknown option `circuitBreaker.breakDurationMS` \(did you mean `circuitBreaker.breakDurationMs`\?\)\.$/,
    ],
    [
      "axios-retry's retryCondition: too little of it shared to name retryDelay (`shouldRetry` is ours)",
      { retryCondition: () => true },
      /^axios-safe-retry: unknown option `retryCondition`; see the options table\.$/,
    ],
    [
      'a name near none',
      { timeout: 1000 },
      /^axios-safe-retry: unknown option `timeout`; see the options table\.$/,
    ],
    ['a short name is not all replaced', { ab: 1 }, /unknown option `ab`; see the options table/],
    [
      'a base delay over the ceiling, both given',
      { baseDelayMs: 5000, maxDelayMs: 100 },
      /`baseDelayMs` must be a number in \[0, 100\]; got 5000\./,
    ],
    ['options not an object', 3, /`options` must be an object; got 3/],
  ])('%s', (_label, options, message) => {
    expect(() => resolveClientOptions(options as RetryOptions)).toThrow(TypeError);
    expect(() => resolveClientOptions(options as RetryOptions)).toThrow(message);
  });

  it('accepts the edges of each range', () => {
    expect(() =>
      resolveClientOptions({
        retries: Infinity,
        baseDelayMs: 0,
        maxDelayMs: 0,
        maxRetryAfterMs: Infinity,
        deadlineMs: 1,
        statusCodes: [408, 429, 599],
        retryBudget: { ratio: 1, minRetriesPerSecond: 0, windowMs: 1 },
      }),
    ).not.toThrow();
    expect(() => resolveClientOptions({ retryBudget: { ratio: 0 } })).not.toThrow();
    expect(() => resolveClientOptions({ maxRetryAfterMs: 0 })).not.toThrow();
  });
});

describe('resolveRequestOptions', () => {
  const client = resolveClientOptions({ retries: 5, baseDelayMs: 50 });

  it('returns the client options when the request sets none', () => {
    expect(resolveRequestOptions(client, undefined)).toBe(client.options);
  });

  it('returns false when the request turns retries off', () => {
    expect(resolveRequestOptions(client, false)).toBe(false);
  });

  it('overrides the client field by field', () => {
    const options = resolveRequestOptions(client, { retries: 1 });
    expect(options).toMatchObject({ retries: 1, baseDelayMs: 50 });
  });

  it('names a bad field with its retry. prefix', () => {
    expect(() => resolveRequestOptions(client, { retries: -2 })).toThrow(
      /`retry.retries` must be an integer in \[0, ∞\]/,
    );
    expect(() => resolveRequestOptions(client, 'often' as never)).toThrow(
      /`retry` must be an object/,
    );
  });

  it('refuses a base delay over the ceiling, both given, at either level; a ceiling alone may cut the default base', () => {
    const capped = resolveClientOptions({ maxDelayMs: 50 });
    expect(capped.options).toMatchObject({ baseDelayMs: 100, maxDelayMs: 50 });
    expect(() => resolveRequestOptions(capped, { baseDelayMs: 500 })).toThrow(
      /`retry.baseDelayMs` must be a number in \[0, 50\]; got 500\./,
    );
    expect(resolveRequestOptions(capped, { baseDelayMs: 50 })).toMatchObject({ baseDelayMs: 50 });
  });

  it('names a bad nested field with its full path', () => {
    expect(() => resolveRequestOptions(client, { idempotencyKey: { header: 'a b' } })).toThrow(
      /`retry.idempotencyKey.header` must be a header name/,
    );
  });

  it.each(['retryBudget', 'circuitBreaker', 'pacing'])(
    'refuses a per-request %s: it belongs to the client, and is not among the options listed',
    (name) => {
      expect(() => resolveRequestOptions(client, { [name]: false } as never)).toThrow(
        new RegExp(`unknown option \`retry.${name}\`; see the options table\\.$`),
      );
    },
  );
});
