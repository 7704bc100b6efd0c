// Issue 17: what users migrating from ky, got, octokit and cockatiel expect. The peers' cases are
// written from their descriptions, against this package's public API.
import { AxiosError } from 'axios';
import {
  ERR_CIRCUIT_OPEN,
  ERR_RATE_LIMITED,
  isRetryStop,
  type RetryDelayEvent,
  type RetryState,
} from '../../src';
import { resolveClientOptions } from '../../src/options/options';
import { failureIn, failureOf } from '../helpers/failure';
import { failWith, mockClient, settle } from '../helpers/mock-client';

beforeEach(() => {
  jest.useFakeTimers({ now: 0 });
});
afterEach(() => {
  jest.useRealTimers();
});

describe('shouldRetry: a boolean, undefined, or a promise of either (ky awaits it)', () => {
  it('ky: `async () => false` retries nothing, a 503 included', async () => {
    const { client, mock } = mockClient({ shouldRetry: async () => false });
    mock.onGet('/items').reply(503);
    const error = failureIn(await settle(client.get('/items')));
    expect(error.config?.retryState?.stopReason).toBe('not-retryable');
    expect(mock.history.get).toHaveLength(1);
  });

  it('ky: `async () => true` retries a 404, with the same backoff', async () => {
    const { client, mock, events } = mockClient({ shouldRetry: async () => true });
    mock.onGet('/items').replyOnce(404).onGet('/items').reply(200, 'ok');
    const { value } = await settle(client.get('/items'));
    expect(value?.data).toBe('ok');
    expect(events.map((e) => e.delayMs)).toEqual([50]);
  });

  it('an async undefined keeps the rules: a 503 is retried, a 404 is not', async () => {
    const { client, mock } = mockClient({ shouldRetry: async () => undefined });
    mock.onGet('/a').replyOnce(503).onGet('/a').reply(200).onGet('/b').reply(404);
    expect((await settle(client.get('/a'))).value?.status).toBe(200);
    const error = failureIn(await settle(client.get('/b')));
    expect(error.config?.retryState?.stopReason).toBe('not-retryable');
    expect(mock.history.get).toHaveLength(3);
  });

  it('asks with the state of the failed attempt, and is awaited before the backoff starts', async () => {
    const asked: number[] = [];
    const { client, mock } = mockClient({
      random: () => 0,
      shouldRetry: (_error, state) => {
        asked.push(state.retryCount);
        return new Promise((resolve) => setTimeout(() => resolve(true), 500));
      },
    });
    mock.onGet('/items').replyOnce(503).onGet('/items').reply(200);
    const call = client.get('/items');
    await jest.advanceTimersByTimeAsync(499);
    expect(mock.history.get).toHaveLength(1);
    // The answer comes at 500, then the backoff (0, a timer's shortest) runs.
    await jest.advanceTimersByTimeAsync(2);
    expect(mock.history.get).toHaveLength(2);
    await expect(call).resolves.toMatchObject({ status: 200 });
    expect(asked).toEqual([0]);
  });

  it.each<[string, () => unknown]>([
    ['ky: a number', () => 42],
    ['a string', () => 'yes'],
    ['null', () => null],
    ['a promise of a number', async () => 1],
  ])(
    'rejects %s with a TypeError naming shouldRetry, and sends nothing more',
    async (_l, answer) => {
      const { client, mock } = mockClient({
        shouldRetry: answer as () => boolean,
      });
      mock.onGet('/items').reply(404);
      const { error } = await settle(client.get('/items'));
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toMatch(/`shouldRetry\(\)` must be a boolean or undefined/);
      expect(mock.history.get).toHaveLength(1);
    },
  );

  it('rejects the call with what it throws, or what its promise rejects with', async () => {
    const thrown = new Error('thrown');
    const rejected = new Error('rejected');
    const { client, mock } = mockClient({
      shouldRetry: (error) => {
        if (error.config?.url === '/a') throw thrown;
        return Promise.reject(rejected);
      },
    });
    mock.onGet('/a').reply(503).onGet('/b').reply(503);
    expect((await settle(client.get('/a'))).error).toBe(thrown);
    expect((await settle(client.get('/b'))).error).toBe(rejected);
    expect(mock.history.get).toHaveLength(2);
  });

  it('is bounded by the deadline: an answer that never comes stops the call with deadline', async () => {
    const { client, mock } = mockClient({
      deadlineMs: 1000,
      shouldRetry: () => new Promise<boolean>(() => {}),
    });
    mock.onGet('/items').reply(503);
    const call = client.get('/items');
    const outcome = call.then(
      () => ({}),
      (error: unknown) => ({ error }),
    );
    await jest.advanceTimersByTimeAsync(1000);
    const error = failureIn(await outcome);
    expect(error.config?.retryState?.stopReason).toBe('deadline');
    expect(Date.now()).toBe(1000);
    expect(mock.history.get).toHaveLength(1);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('leaves no timer behind once an async answer came before the deadline', async () => {
    const { client, mock } = mockClient({ deadlineMs: 60_000, shouldRetry: async () => false });
    mock.onGet('/items').reply(503);
    await failureOf(client.get('/items'));
    expect(jest.getTimerCount()).toBe(0);
  });
});

describe('a rejecting shouldRetry, on real timers', () => {
  beforeEach(() => {
    jest.useRealTimers();
  });

  it('never leaves an unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const listener = (reason: unknown): void => {
      unhandled.push(reason);
    };
    process.on('unhandledRejection', listener);
    try {
      const failure = new Error('predicate failed');
      const { client, mock } = mockClient({
        random: () => 0,
        circuitBreaker: false,
        shouldRetry: () => Promise.reject(failure),
      });
      mock.onGet('/items').reply(503);
      await expect(client.get('/items')).rejects.toBe(failure);
      // Unhandled rejections are reported once the microtask queue has drained.
      for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
      expect(mock.history.get).toHaveLength(1);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', listener);
    }
  });
});

describe("GitHub's secondary rate limit (octokit's plugin-throttling)", () => {
  it('retries a 403 with Retry-After once the wait is over', async () => {
    const { client, mock, events } = mockClient({ random: () => 0 });
    mock
      .onGet('/repos')
      .replyOnce(403, { message: 'secondary rate limit' }, { 'retry-after': '2' })
      .onGet('/repos')
      .reply(200, 'ok');
    const call = client.get('/repos');
    await jest.advanceTimersByTimeAsync(1999);
    expect(mock.history.get).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1);
    await expect(call).resolves.toMatchObject({ data: 'ok' });
    expect(events.map((e) => e.delayMs)).toEqual([2000]);
  });

  it('retries a 429 with Retry-After the same way', async () => {
    const { client, mock, events } = mockClient({ random: () => 0 });
    mock.onGet('/repos').replyOnce(429, '', { 'retry-after': '3' }).onGet('/repos').reply(200);
    await settle(client.get('/repos'));
    expect(events.map((e) => e.delayMs)).toEqual([3000]);
  });

  it('takes the 403 with Retry-After as a throttle: the next call waits it out too', async () => {
    const { client, mock } = mockClient({ random: () => 0, retries: 0 });
    const sentAt: number[] = [];
    mock.onGet('/repos').reply(() => {
      sentAt.push(Date.now());
      return sentAt.length === 1 ? [403, '', { 'retry-after': '2' }] : [200];
    });
    await failureOf(client.get('/repos'));
    const { value } = await settle(client.get('/repos'));
    expect(sentAt).toEqual([0, 2000]);
    expect(value?.config.retryState?.waitedMs).toBe(2000);
  });

  it('never retries a plain 403', async () => {
    const { client, mock } = mockClient();
    mock.onGet('/repos').reply(403, { message: 'Resource not accessible' });
    const error = failureIn(await settle(client.get('/repos')));
    expect(error.response?.status).toBe(403);
    expect(error.config?.retryState?.stopReason).toBe('not-retryable');
    expect(mock.history.get).toHaveLength(1);
  });
});

describe('retryDelay: the delay function of ky (`retry.delay`), got (`calculateDelay`) and axios-retry', () => {
  it('ky: sleeps what the function returns for each retry', async () => {
    const { client, mock, events } = mockClient({
      retryDelay: ({ retryCount }) => 300 * retryCount,
    });
    mock.onGet('/items').replyOnce(503).onGet('/items').replyOnce(503).onGet('/items').reply(200);
    const call = client.get('/items');
    await jest.advanceTimersByTimeAsync(299);
    expect(mock.history.get).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(mock.history.get).toHaveLength(2);
    await expect(settle(call)).resolves.toMatchObject({ value: { status: 200 } });
    expect(events.map((e) => e.delayMs)).toEqual([300, 600]);
    expect((await call).config.retryState?.delays).toEqual([300, 600]);
  });

  it("got: is given the package's own full-jitter delay, the retry and the error", async () => {
    const seen: RetryDelayEvent[] = [];
    const { client, mock, events } = mockClient({
      retryDelay: (event) => {
        seen.push(event);
        return event.delayMs * 2;
      },
    });
    mock.onGet('/items').replyOnce(503).onGet('/items').replyOnce(502).onGet('/items').reply(200);
    await settle(client.get('/items'));
    expect(seen.map((e) => [e.retryCount, e.delayMs, e.error.response?.status])).toEqual([
      [1, 50, 503],
      [2, 100, 502],
    ]);
    expect(events.map((e) => e.delayMs)).toEqual([100, 200]);
  });

  it('got: a delay of 0 retries at once', async () => {
    const { client, mock } = mockClient({ retryDelay: () => 0 });
    mock.onGet('/items').replyOnce(503).onGet('/items').reply(200);
    const call = client.get('/items');
    await jest.advanceTimersByTimeAsync(0);
    expect(mock.history.get).toHaveLength(2);
    await expect(call).resolves.toMatchObject({ status: 200 });
  });

  it('is not asked when the server set the wait: its Retry-After wins', async () => {
    const retryDelay = jest.fn(() => 10);
    const { client, mock, events } = mockClient({ retryDelay });
    mock.onGet('/items').replyOnce(503, '', { 'retry-after': '3' }).onGet('/items').reply(200);
    await settle(client.get('/items'));
    expect(events.map((e) => e.delayMs)).toEqual([3050]);
    expect(retryDelay).not.toHaveBeenCalled();
  });

  it('is still bounded by the deadline: a longer delay becomes the last attempt inside it', async () => {
    const { client, mock } = mockClient({ deadlineMs: 1000, retryDelay: () => 60_000 });
    mock.onGet('/items').reply(503);
    const error = failureIn(await settle(client.get('/items')));
    expect(error.config?.retryState).toMatchObject({
      delays: [500],
      finalAttempt: true,
      stopReason: 'deadline',
    });
    expect(Date.now()).toBeLessThanOrEqual(1000);
  });

  it('can be set per request, over the client', async () => {
    const { client, mock, events } = mockClient({ retryDelay: () => 1000 });
    mock.onGet('/items').replyOnce(503).onGet('/items').reply(200);
    await settle(client.get('/items', { retry: { retryDelay: () => 7 } }));
    expect(events.map((e) => e.delayMs)).toEqual([7]);
  });

  it.each<[string, unknown]>([
    ['a negative number', -1],
    ['NaN', Number.NaN],
    ['Infinity', Infinity],
    ['a string', '100'],
    ['undefined', undefined],
  ])('rejects %s with a TypeError naming retryDelay, and sends nothing more', async (_l, ms) => {
    const { client, mock } = mockClient({ retryDelay: () => ms as number });
    mock.onGet('/items').reply(503);
    const { error } = await settle(client.get('/items'));
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(/`retryDelay\(\)` must be a number in \[0, ∞\); got /);
    expect(mock.history.get).toHaveLength(1);
  });

  it('must be a function', () => {
    expect(() => resolveClientOptions({ retryDelay: 100 as never })).toThrow(
      /`retryDelay` must be a function; got 100/,
    );
  });
});

describe('rate-limit dialects', () => {
  it('ky: honours X-RateLimit-Retry-After like Retry-After', async () => {
    const { client, mock, events } = mockClient({ random: () => 0, pacing: false });
    mock
      .onGet('/items')
      .replyOnce(429, '', { 'x-ratelimit-retry-after': '4' })
      .onGet('/items')
      .reply(200);
    await settle(client.get('/items'));
    expect(events.map((e) => e.delayMs)).toEqual([4000]);
  });

  it('prefers Retry-After when both are sent', async () => {
    const { client, mock, events } = mockClient({ random: () => 0, pacing: false });
    mock
      .onGet('/items')
      .replyOnce(503, '', { 'retry-after': '1', 'x-ratelimit-retry-after': '4' })
      .onGet('/items')
      .reply(200);
    await settle(client.get('/items'));
    expect(events.map((e) => e.delayMs)).toEqual([1000]);
  });

  it('takes a 403 with X-RateLimit-Retry-After for a throttle too', async () => {
    const { client, mock, events } = mockClient({ random: () => 0, pacing: false });
    mock
      .onGet('/items')
      .replyOnce(403, '', { 'x-ratelimit-retry-after': '2' })
      .onGet('/items')
      .reply(200);
    await settle(client.get('/items'));
    expect(events.map((e) => e.delayMs)).toEqual([2000]);
  });

  it('reads X-Rate-Limit-Reset (X) like X-RateLimit-Reset for the wait of a 429', async () => {
    const { client, mock, events } = mockClient({ random: () => 0, pacing: false });
    mock
      .onGet('/items')
      .replyOnce(429, '', { 'x-rate-limit-remaining': '0', 'x-rate-limit-reset': '5' })
      .onGet('/items')
      .reply(200);
    await settle(client.get('/items'));
    expect(events.map((e) => e.delayMs)).toEqual([5000]);
  });
});

describe('exported codes and isRetryStop', () => {
  it('exports the codes of the errors the gate rejects with', async () => {
    expect(ERR_CIRCUIT_OPEN).toBe('ERR_CIRCUIT_OPEN');
    expect(ERR_RATE_LIMITED).toBe('ERR_RATE_LIMITED');
    const { client, mock } = mockClient({
      retries: 0,
      circuitBreaker: { minimumThroughput: 2, breakDurationMs: 1000 },
    });
    mock.onGet('/items').reply(503);
    await failureOf(client.get('/items'));
    await failureOf(client.get('/items'));
    const error = await failureOf(client.get('/items'));
    expect(error.code).toBe(ERR_CIRCUIT_OPEN);
    expect(isRetryStop(error) && error.config.retryState.stopReason).toBe('circuit-open');
  });

  it('isRetryStop: true for the error of a stopped call, false for anything else', async () => {
    const { client, mock } = mockClient({ retries: 1 });
    mock.onGet('/stop').reply(503).onGet('/ok').reply(200);
    const stopped = failureIn(await settle(client.get('/stop')));
    expect(isRetryStop(stopped)).toBe(true);
    const { value } = await settle(client.get('/ok'));
    expect(isRetryStop(value)).toBe(false);
    expect(isRetryStop(new Error('x'))).toBe(false);
    expect(isRetryStop(new AxiosError('x', 'ERR_NETWORK', { headers: {} } as never))).toBe(false);
    expect(isRetryStop(undefined)).toBe(false);
    const notAxios = { config: { retryState: { stopReason: 'deadline' } } };
    expect(isRetryStop(notAxios)).toBe(false);
  });
});

describe('retryState.maybePerformed', () => {
  it('stays on the error when a performed keyed POST then meets a 429 with Retry-After: 120', async () => {
    const { client, mock } = mockClient({ idempotencyKey: true });
    mock
      .onPost('/charges')
      .replyOnce(failWith('ECONNRESET'))
      .onPost('/charges')
      .reply(429, '', { 'retry-after': '120' });
    const error = failureIn(await settle(client.post('/charges', {})));
    expect(error.config?.retryState).toMatchObject({
      stopReason: 'retry-after-too-long',
      maybePerformed: true,
    });
    expect(mock.history.post).toHaveLength(2);
  });

  it('is set by a timeout of a POST without a key, which is not retried', async () => {
    const { client, mock } = mockClient();
    mock.onPost('/charges').reply(failWith('ECONNABORTED'));
    const error = failureIn(await settle(client.post('/charges', {})));
    expect(error.config?.retryState).toMatchObject({
      stopReason: 'not-retryable',
      maybePerformed: true,
    });
  });

  it('is given to shouldRetry and onRetry with the state', async () => {
    const states: RetryState[] = [];
    const { client, mock } = mockClient({
      idempotencyKey: true,
      shouldRetry: (_error, state) => {
        states.push(state);
        return undefined;
      },
    });
    mock.onPost('/charges').replyOnce(failWith('ETIMEDOUT')).onPost('/charges').reply(201);
    const { value } = await settle(client.post('/charges', {}));
    expect(states[0]?.maybePerformed).toBe(true);
    expect(value?.config.retryState?.maybePerformed).toBe(true);
  });

  it.each<[string, string, unknown]>([
    ['a POST refused (never sent)', 'post', failWith('ECONNREFUSED')],
    ['a POST answered 503', 'post', () => [503]],
    ['a GET that timed out (idempotent)', 'get', failWith('ECONNABORTED')],
    ['a PUT reset mid-request (idempotent)', 'put', failWith('ECONNRESET')],
  ])('is not set for %s', async (_label, method, reply) => {
    const { client, mock } = mockClient({ retries: 1 });
    mock.onAny('/charges').reply(reply as never);
    const error = failureIn(await settle(client.request({ method, url: '/charges' })));
    expect(error.config?.retryState?.stopReason).toBeDefined();
    expect(error.config?.retryState?.maybePerformed).toBeUndefined();
  });
});

describe('deadlineMs: Infinity, and a partial circuitBreaker', () => {
  it('deadlineMs: Infinity turns the client deadline off for one request', async () => {
    const { client, mock } = mockClient({ deadlineMs: 100, random: () => 0.99 });
    mock
      .onGet('/items')
      .replyOnce(503)
      .onGet('/items')
      .replyOnce(503)
      .onGet('/items')
      .replyOnce(503)
      .onGet('/items')
      .reply(200);
    const { value } = await settle(client.get('/items', { retry: { deadlineMs: Infinity } }));
    expect(value?.status).toBe(200);
    expect(value?.config.retryState?.delays).toEqual([99, 198, 396]);
    expect(value?.config.timeout).toBe(0);
    // The client deadline still holds for the other requests.
    mock.resetHandlers();
    mock.onGet('/items').reply(503);
    const error = failureIn(await settle(client.get('/items')));
    expect(error.config?.retryState?.stopReason).toBe('deadline');
  });

  it('deadlineMs: Infinity on the client is no deadline at all', () => {
    expect(resolveClientOptions({ deadlineMs: Infinity }).options.deadlineMs).toBeUndefined();
  });

  it('accepts a breaker that sets only a long breakDurationMs: the longest break follows it', () => {
    expect(
      resolveClientOptions({ circuitBreaker: { breakDurationMs: 60_000 } }).circuitBreaker,
    ).toMatchObject({ breakDurationMs: 60_000, maxBreakDurationMs: 60_000 });
    expect(
      resolveClientOptions({ circuitBreaker: { breakDurationMs: 100 } }).circuitBreaker,
    ).toMatchObject({ breakDurationMs: 100, maxBreakDurationMs: 2000 });
    expect(() =>
      resolveClientOptions({
        circuitBreaker: { breakDurationMs: 60_000, maxBreakDurationMs: 1000 },
      }),
    ).toThrow(/`circuitBreaker.maxBreakDurationMs` must be a number in \[/);
  });

  it('works through attachRetry with that breaker', () => {
    expect(() =>
      mockClient({ circuitBreaker: { breakDurationMs: 60_000 } }).detach(),
    ).not.toThrow();
  });
});
