import { Readable } from 'node:stream';
import axios, { AxiosError, type AxiosResponse, type InternalAxiosRequestConfig } from 'axios';
import MockAdapter from 'axios-mock-adapter';
import { attachRetry, retryInterceptor } from '../src';
import { failureIn } from './helpers/failure';
import { failWith, mockClient, settle } from './helpers/mock-client';

beforeEach(() => {
  jest.useFakeTimers({ now: 0 });
});
afterEach(() => {
  jest.useRealTimers();
});

describe('retrying a failed call', () => {
  it('rides through 503s with full-jitter delays and records the state on the config', async () => {
    const { client, mock, events } = mockClient();
    mock
      .onGet('/items')
      .replyOnce(503)
      .onGet('/items')
      .replyOnce(503)
      .onGet('/items')
      .reply(200, 'ok');
    const { value } = await settle(client.get('/items'));
    expect(value?.data).toBe('ok');
    expect(mock.history.get).toHaveLength(3);
    expect(events.map((e) => [e.retryCount, e.delayMs, e.error.response?.status])).toEqual([
      [1, 50, 503],
      [2, 100, 503],
    ]);
    expect(value?.config.retryState).toMatchObject({
      retryCount: 2,
      startedAt: 0,
      delays: [50, 100],
    });
    expect(value?.config.retryState?.stopReason).toBeUndefined();
  });

  it('sleeps exactly the drawn delay before each retry, not less', async () => {
    const { client, mock } = mockClient({ random: () => 0.999 });
    mock.onGet('/items').replyOnce(503).onGet('/items').reply(200);
    const call = client.get('/items');
    await jest.advanceTimersByTimeAsync(99);
    expect(mock.history.get).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(mock.history.get).toHaveLength(2);
    await expect(call).resolves.toMatchObject({ status: 200 });
  });

  it("rejects with axios's own last error, unchanged, once retries run out", async () => {
    const { client, mock } = mockClient({ retries: 2 });
    mock
      .onGet('/items')
      .replyOnce(503, 'first')
      .onGet('/items')
      .replyOnce(502, 'second')
      .onGet('/items')
      .reply(500, 'third');
    const error = failureIn(await settle(client.get('/items')));
    expect(axios.isAxiosError(error)).toBe(true);
    expect(error.response?.data).toBe('third');
    expect(error.config?.retryState).toMatchObject({
      retryCount: 2,
      stopReason: 'retries-exhausted',
    });
    expect(mock.history.get).toHaveLength(3);
  });

  it('does not retry a 4xx other than 408 and 429', async () => {
    const { client, mock } = mockClient();
    mock.onGet('/items').reply(404);
    const error = failureIn(await settle(client.get('/items')));
    expect(error.config?.retryState?.stopReason).toBe('not-retryable');
    expect(mock.history.get).toHaveLength(1);
  });

  it('retries a timeout, a network error and a reset connection of a GET', async () => {
    const { client, mock } = mockClient();
    mock
      .onGet('/items')
      .timeoutOnce()
      .onGet('/items')
      .replyOnce(failWith('ERR_NETWORK'))
      .onGet('/items')
      .replyOnce(failWith('ECONNRESET'))
      .onGet('/items')
      .reply(200);
    const { value } = await settle(client.get('/items'));
    expect(value?.status).toBe(200);
    expect(mock.history.get).toHaveLength(4);
  });

  it('retries a POST whose connection was refused: it never reached the server', async () => {
    const { client, mock } = mockClient();
    mock.onPost('/charges').replyOnce(failWith('ECONNREFUSED')).onPost('/charges').reply(201);
    const { value } = await settle(client.post('/charges', {}));
    expect(value?.status).toBe(201);
  });

  it('does not retry a failure it cannot recognise (no code, no response)', async () => {
    const { client, mock } = mockClient();
    mock.onGet('/items').networkError();
    const error = failureIn(await settle(client.get('/items')));
    expect(error.config?.retryState?.stopReason).toBe('not-retryable');
    expect(mock.history.get).toHaveLength(1);
  });

  it('does not retry a timed-out POST that has no idempotency key', async () => {
    const { client, mock } = mockClient();
    mock.onPost('/charges').timeout();
    const error = failureIn(await settle(client.post('/charges', { amount: 100 })));
    expect(error.code).toBe('ECONNABORTED');
    expect(error.config?.retryState?.stopReason).toBe('not-retryable');
    expect(mock.history.post).toHaveLength(1);
  });

  it('leaves no timer running once the call settles', async () => {
    const { client, mock } = mockClient();
    mock.onGet('/items').replyOnce(503).onGet('/items').reply(200);
    await settle(client.get('/items'));
    expect(jest.getTimerCount()).toBe(0);
  });

  it('passes through an error that is not an axios error, unchanged', async () => {
    const { client, mock } = mockClient();
    const failure = new Error('interceptor bug');
    client.interceptors.request.use(() => {
      throw failure;
    });
    mock.onGet('/items').reply(200);
    const { error } = await settle(client.get('/items'));
    expect(error).toBe(failure);
    expect(mock.history.get).toHaveLength(0);
  });
});

describe('per-request config', () => {
  it('turns retries off with retry: false', async () => {
    const { client, mock } = mockClient();
    mock.onGet('/items').reply(503);
    const error = failureIn(await settle(client.get('/items', { retry: false })));
    expect(error.config?.retryState?.stopReason).toBe('disabled');
    expect(mock.history.get).toHaveLength(1);
  });

  it('overrides the client options field by field', async () => {
    const { client, mock, events } = mockClient({ retries: 5 });
    mock.onGet('/items').reply(503);
    const error = failureIn(
      await settle(client.get('/items', { retry: { retries: 1, baseDelayMs: 1000 } })),
    );
    expect(error.config?.retryState?.stopReason).toBe('retries-exhausted');
    expect(events.map((e) => e.delayMs)).toEqual([500]);
    expect(mock.history.get).toHaveLength(2);
  });

  it('rejects a bad per-request value with a clear error and sends nothing', async () => {
    const { client, mock } = mockClient();
    mock.onGet('/items').reply(200);
    const { error } = await settle(client.get('/items', { retry: { retries: -1 } }));
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(/`retry.retries` must be a whole number ≥ 0/);
    expect(mock.history.get).toHaveLength(0);
  });
});

describe('onRetry', () => {
  it('receives a frozen event, after the sleep is scheduled', async () => {
    const { client, mock } = mockClient({
      onRetry: (event) => {
        timersWhenCalled.push(jest.getTimerCount());
        expect(Object.isFrozen(event)).toBe(true);
        expect(event.config.url).toBe('/items');
      },
    });
    const timersWhenCalled: number[] = [];
    mock.onGet('/items').replyOnce(503).onGet('/items').reply(200);
    await settle(client.get('/items'));
    expect(timersWhenCalled).toEqual([1]);
  });

  it('rejects the call with the error onRetry throws, and clears its timer', async () => {
    const failure = new Error('logger down');
    const { client, mock } = mockClient({
      onRetry: () => {
        throw failure;
      },
    });
    mock.onGet('/items').reply(503);
    const { error } = await settle(client.get('/items'));
    expect(error).toBe(failure);
    expect(jest.getTimerCount()).toBe(0);
    expect(mock.history.get).toHaveLength(1);
  });
});

describe('onRetry that fails or returns a promise', () => {
  const failure = new Error('logger down');
  it.each<[string, () => unknown]>([
    [
      'throws',
      () => {
        throw failure;
      },
    ],
    ['returns a rejected promise', () => Promise.reject(failure)],
    [
      'is async and throws later',
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 10));
        throw failure;
      },
    ],
  ])(
    'a hook that %s rejects the call with its error, clears its timers, sends nothing more',
    async (_name, onRetry) => {
      const { client, mock } = mockClient({ onRetry: onRetry as () => void, baseDelayMs: 1000 });
      mock.onGet('/items').replyOnce(503).onGet('/items').reply(200);
      const { error } = await settle(client.get('/items'));
      expect(error).toBe(failure);
      expect(jest.getTimerCount()).toBe(0);
      expect(mock.history.get).toHaveLength(1);
    },
  );

  it('waits for the promise of an async hook before it sends the retry', async () => {
    const { client, mock } = mockClient({
      onRetry: () => new Promise<void>((resolve) => setTimeout(resolve, 5000)),
    });
    mock.onGet('/items').replyOnce(503).onGet('/items').reply(200);
    const call = client.get('/items');
    await jest.advanceTimersByTimeAsync(4999);
    expect(mock.history.get).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1);
    await expect(call).resolves.toMatchObject({ status: 200 });
  });

  it('is canceled at once while it waits for the hook', async () => {
    const controller = new AbortController();
    const { client, mock } = mockClient({ onRetry: () => new Promise<void>(() => {}) });
    mock.onGet('/items').replyOnce(503).onGet('/items').reply(200);
    const outcome = client.get('/items', { signal: controller.signal }).catch((e: unknown) => e);
    await jest.advanceTimersByTimeAsync(1000);
    controller.abort();
    expect(axios.isCancel(await outcome)).toBe(true);
    expect(mock.history.get).toHaveLength(1);
  });
});

describe('idempotency keys', () => {
  const keyHeader = (config: { headers?: unknown }) =>
    (config.headers as Record<string, string>)['Idempotency-Key'];

  it('stamps a key on the first attempt of a POST and sends the same key on every retry', async () => {
    let n = 0;
    const { client, mock } = mockClient({ idempotencyKey: { generate: () => `key-${++n}` } });
    mock
      .onPost('/charges')
      .replyOnce(503)
      .onPost('/charges')
      .replyOnce(503)
      .onPost('/charges')
      .reply(201);
    const { value } = await settle(client.post('/charges', { amount: 100 }));
    expect(value?.status).toBe(201);
    expect(mock.history.post.map(keyHeader)).toEqual(['key-1', 'key-1', 'key-1']);
    expect(value?.config.retryState?.idempotencyKey).toBe('key-1');
  });

  it('gives separate calls separate keys (uuid v4 by default)', async () => {
    const { client, mock } = mockClient({ idempotencyKey: true });
    mock.onPost('/charges').reply(201);
    await settle(Promise.all([client.post('/charges', {}), client.post('/charges', {})]));
    const [first, second] = mock.history.post.map(keyHeader);
    expect(first).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(second).not.toBe(first);
  });

  it('stamps no key on methods outside idempotencyKey.methods', async () => {
    const { client, mock } = mockClient({ idempotencyKey: true });
    mock.onGet('/items').reply(200);
    mock.onPut('/items/1').reply(200);
    await settle(Promise.all([client.get('/items'), client.put('/items/1', {})]));
    expect([...mock.history.get, ...mock.history.put].map(keyHeader)).toEqual([
      undefined,
      undefined,
    ]);
  });

  it('turns keys on per request', async () => {
    const { client, mock } = mockClient();
    mock.onPost('/charges').replyOnce(503).onPost('/charges').reply(201);
    const { value } = await settle(
      client.post('/charges', {}, { retry: { idempotencyKey: true } }),
    );
    expect(value?.status).toBe(201);
    expect(new Set(mock.history.post.map(keyHeader)).size).toBe(1);
    expect(keyHeader(mock.history.post[0]!)).toBeDefined();
  });

  it("keeps the caller's own header, in any case, and retries the write with it, even with keys off", async () => {
    const { client, mock } = mockClient();
    mock.onPost('/charges').replyOnce(503).onPost('/charges').reply(201);
    const { value } = await settle(
      client.post('/charges', {}, { headers: { 'idempotency-key': 'mine' } }),
    );
    expect(value?.status).toBe(201);
    expect(
      mock.history.post.map((c) => (c.headers as Record<string, string>)['idempotency-key']),
    ).toEqual(['mine', 'mine']);
    expect(value?.config.retryState?.idempotencyKey).toBe('mine');
  });

  it("retries a keyed retry answered 409 (the IETF draft's original still in flight), after a backoff", async () => {
    const { client, mock, events } = mockClient({ idempotencyKey: true });
    mock
      .onPost('/charges')
      .replyOnce(503)
      .onPost('/charges')
      .replyOnce(409)
      .onPost('/charges')
      .reply(201);
    const { value } = await settle(client.post('/charges', {}));
    expect(value?.status).toBe(201);
    expect(events.map((e) => [e.retryCount, e.delayMs])).toEqual([
      [1, 50],
      [2, 100],
    ]);
  });

  it.each<[string, number, boolean]>([
    ['409 to the first attempt of a keyed POST', 409, true],
    ['422 to a retry of a keyed POST', 422, false],
  ])('never retries a %s', async (_name, status, first) => {
    const { client, mock } = mockClient({ idempotencyKey: true });
    if (!first) mock.onPost('/charges').replyOnce(503);
    mock.onPost('/charges').reply(status);
    const error = failureIn(await settle(client.post('/charges', {})));
    expect(error.config?.retryState?.stopReason).toBe('not-retryable');
    expect(mock.history.post).toHaveLength(first ? 1 : 2);
  });

  it('does not retry a write that carries no key', async () => {
    const { client, mock } = mockClient();
    mock.onPost('/charges').reply(503);
    const error = failureIn(await settle(client.post('/charges', {})));
    expect(error.config?.retryState?.stopReason).toBe('not-retryable');
    expect(mock.history.post).toHaveLength(1);
  });
});

describe('Retry-After', () => {
  it('never retries earlier than the server asked', async () => {
    const { client, mock } = mockClient({ random: () => 0 });
    mock.onGet('/items').replyOnce(429, '', { 'retry-after': '3' }).onGet('/items').reply(200);
    const call = client.get('/items');
    await jest.advanceTimersByTimeAsync(2999);
    expect(mock.history.get).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(mock.history.get).toHaveLength(2);
    await expect(call).resolves.toMatchObject({ status: 200 });
  });

  it('adds the jitter draw on top of the asked wait', async () => {
    const { client, mock, events } = mockClient();
    mock.onGet('/items').replyOnce(503, '', { 'Retry-After': '1' }).onGet('/items').reply(200);
    await settle(client.get('/items'));
    expect(events.map((e) => e.delayMs)).toEqual([1050]);
  });

  it('fails at once when the wait is longer than maxRetryAfterMs', async () => {
    const { client, mock } = mockClient({ maxRetryAfterMs: 5000 });
    mock.onGet('/items').reply(429, '', { 'retry-after': '6' });
    const error = failureIn(await settle(client.get('/items')));
    expect(error.config?.retryState?.stopReason).toBe('retry-after-too-long');
    expect(mock.history.get).toHaveLength(1);
  });
});

describe('the deadline', () => {
  it('clamps the timeout of every attempt, the first included, to the time left', async () => {
    const { client, mock } = mockClient({ deadlineMs: 1000, random: () => 0.999_999 });
    mock.onGet('/items').replyOnce(503).onGet('/items').reply(200);
    const { value } = await settle(client.get('/items', { timeout: 5000 }));
    expect(value?.status).toBe(200);
    expect(mock.history.get.map((c) => c.timeout)).toEqual([1000, 900]);
  });

  it("keeps the caller's shorter timeout", async () => {
    const { client, mock } = mockClient({ deadlineMs: 1000 });
    mock.onGet('/items').reply(200);
    await settle(client.get('/items', { timeout: 300 }));
    expect(mock.history.get[0]?.timeout).toBe(300);
  });

  it('stops with deadline when a Retry-After ends past it', async () => {
    const { client, mock } = mockClient({ deadlineMs: 2000 });
    mock.onGet('/items').reply(503, '', { 'retry-after': '5' });
    const error = failureIn(await settle(client.get('/items')));
    expect(error.config?.retryState?.stopReason).toBe('deadline');
    expect(mock.history.get).toHaveLength(1);
  });

  it('gives one last attempt inside the deadline, then stops with deadline', async () => {
    const { client, mock } = mockClient({ deadlineMs: 250, retries: 10, random: () => 0.9 });
    mock.onGet('/items').reply(503);
    const error = failureIn(await settle(client.get('/items')));
    // Delays 90 and 180 (ceilings 100, 200); 90 + 180 = 270 > 250, so the second retry is the
    // last one, drawn over the 160 ms left: 0.9 × 160 = 144.
    expect(error.config?.retryState).toMatchObject({
      delays: [90, 144],
      finalAttempt: true,
      stopReason: 'deadline',
    });
    expect(mock.history.get).toHaveLength(3);
    expect(Date.now()).toBeLessThanOrEqual(250);
  });
});

describe('cancellation', () => {
  it('rejects at once when aborted during the backoff sleep, clears the timer and sends nothing more', async () => {
    const { client, mock } = mockClient({ random: () => 0, baseDelayMs: 10_000 });
    mock.onGet('/items').replyOnce(503, '', { 'retry-after': '10' }).onGet('/items').reply(200);
    const controller = new AbortController();
    const call = client.get('/items', { signal: controller.signal });
    const outcome = call.catch((error: unknown) => error);
    await jest.advanceTimersByTimeAsync(100);
    expect(jest.getTimerCount()).toBe(1);
    controller.abort();
    const error = (await outcome) as AxiosError;
    expect(axios.isCancel(error)).toBe(true);
    expect(error.config?.retryState?.stopReason).toBe('canceled');
    expect(jest.getTimerCount()).toBe(0);
    await jest.advanceTimersByTimeAsync(20_000);
    expect(mock.history.get).toHaveLength(1);
  });

  it('rejects with the CancelToken reason when its token cancels during the sleep', async () => {
    const { client, mock } = mockClient({ baseDelayMs: 10_000 });
    mock.onGet('/items').reply(503);
    const source = axios.CancelToken.source();
    const outcome = client
      .get('/items', { cancelToken: source.token })
      .catch((error: unknown) => error);
    await jest.advanceTimersByTimeAsync(10);
    source.cancel('user left');
    const error = await outcome;
    expect(axios.isCancel(error)).toBe(true);
    expect((error as Error).message).toBe('user left');
    expect(jest.getTimerCount()).toBe(0);
    expect(mock.history.get).toHaveLength(1);
  });

  it('never retries a request canceled in flight', async () => {
    const { client, mock } = mockClient();
    mock.onGet('/items').reply(200);
    const controller = new AbortController();
    controller.abort();
    const { error } = await settle(client.get('/items', { signal: controller.signal }));
    expect(axios.isCancel(error)).toBe(true);
    expect(mock.history.get).toHaveLength(0);
  });
});

describe('the retry budget', () => {
  it('is shared by every call of one client and sheds retries past it', async () => {
    const { client, mock } = mockClient({
      retries: 1,
      retryBudget: { ratio: 0, minRetriesPerSecond: 0.2, windowMs: 10_000 }, // 2 retries a window
    });
    mock.onGet('/items').reply(503);
    const outcomes = await settle(Promise.allSettled([1, 2, 3, 4].map(() => client.get('/items'))));
    const reasons = (outcomes.value ?? []).map(
      (o) => ((o as PromiseRejectedResult).reason as AxiosError).config?.retryState?.stopReason,
    );
    expect(reasons.sort()).toEqual([
      'budget-exhausted',
      'budget-exhausted',
      'retries-exhausted',
      'retries-exhausted',
    ]);
    expect(mock.history.get).toHaveLength(6);
  });

  it('gives each client its own budget', async () => {
    const budget = { ratio: 0, minRetriesPerSecond: 0.1, windowMs: 10_000 }; // 1 retry a window
    const a = mockClient({ retries: 1, retryBudget: budget });
    const b = mockClient({ retries: 1, retryBudget: budget });
    a.mock.onGet('/items').reply(503);
    b.mock.onGet('/items').reply(503);
    await settle(a.client.get('/items').catch(() => undefined));
    await settle(b.client.get('/items').catch(() => undefined));
    expect([a.mock.history.get.length, b.mock.history.get.length]).toEqual([2, 2]);
  });

  it('can be turned off', async () => {
    // The breaker would stop sending to an origin that fails every attempt.
    const { client, mock } = mockClient({ retries: 1, retryBudget: false, circuitBreaker: false });
    mock.onGet('/items').reply(503);
    await settle(Promise.allSettled(Array.from({ length: 200 }, () => client.get('/items'))));
    expect(mock.history.get).toHaveLength(400);
  });
});

describe('re-issuing the same call', () => {
  it('runs request interceptors on every attempt, and later response interceptors once per call', async () => {
    const { client, mock } = mockClient();
    let token = 0;
    client.interceptors.request.use((config) => {
      config.headers.set('Authorization', `Bearer ${++token}`);
      return config;
    });
    const seen: (number | string)[] = [];
    client.interceptors.response.use(
      (response) => {
        seen.push(response.status);
        return response;
      },
      (error: AxiosError) => {
        seen.push(`error ${error.response?.status}`);
        throw error;
      },
    );
    mock.onGet('/items').replyOnce(503).onGet('/items').replyOnce(503).onGet('/items').reply(200);
    await settle(client.get('/items'));
    expect(
      mock.history.get.map((c) => (c.headers as Record<string, string>).Authorization),
    ).toEqual(['Bearer 1', 'Bearer 2', 'Bearer 3']);
    expect(seen).toEqual([200]);

    mock.reset();
    seen.length = 0;
    mock.onGet('/items').reply(503);
    await settle(client.get('/items').catch(() => undefined));
    expect(seen).toEqual(['error 503']);
  });

  it('shows response interceptors added before attachRetry every attempt, as they see the first', async () => {
    const client = axios.create({ baseURL: 'http://api.test' });
    const mock = new MockAdapter(client);
    const seen: (number | undefined)[] = [];
    client.interceptors.response.use(
      (response) => {
        seen.push(response.status);
        return response;
      },
      (error: AxiosError) => {
        seen.push(error.response?.status);
        throw error;
      },
    );
    attachRetry(client, { random: () => 0 });
    mock.onGet('/items').replyOnce(503).onGet('/items').replyOnce(502).onGet('/items').reply(200);
    const { value } = await settle(client.get('/items'));
    expect(value?.status).toBe(200);
    expect(seen).toEqual([503, 502, 200]);
  });

  it('shapes a retried success as a first-try success, through an interceptor added before it', async () => {
    const client = axios.create({ baseURL: 'http://api.test' });
    const mock = new MockAdapter(client);
    client.interceptors.response.use((response) => response.data);
    attachRetry(client, { random: () => 0 });
    const after: unknown[] = [];
    client.interceptors.response.use((result) => {
      after.push(result);
      return result;
    });
    mock.onGet('/first-try').reply(200, { items: [1] });
    mock
      .onGet('/retried')
      .replyOnce(503)
      .onGet('/retried')
      .reply(200, { items: [1] });
    expect((await settle(client.get('/first-try'))).value).toEqual({ items: [1] });
    expect((await settle(client.get('/retried'))).value).toEqual({ items: [1] });
    expect(after).toEqual([{ items: [1] }, { items: [1] }]);
  });

  it('skips a response interceptor ejected before the retry, and one added after attachRetry', async () => {
    const client = axios.create({ baseURL: 'http://api.test' });
    const mock = new MockAdapter(client);
    const runs: string[] = [];
    const ejected = client.interceptors.response.use(undefined, (error: AxiosError) => {
      runs.push('ejected');
      throw error;
    });
    client.interceptors.response.use(undefined, (error: AxiosError) => {
      runs.push('before');
      throw error;
    });
    attachRetry(client, { random: () => 0, retries: 1 });
    client.interceptors.response.use(undefined, (error: AxiosError) => {
      runs.push('after');
      throw error;
    });
    mock.onGet('/items').reply(503);
    const call = client.get('/items');
    client.interceptors.response.eject(ejected);
    await settle(call.catch(() => undefined));
    // The first attempt ran through the chain axios built before the eject.
    expect(runs).toEqual(['ejected', 'before', 'before', 'after']);
  });

  it('sends the same method, URL, params, headers and body, transformed once', async () => {
    const { client, mock } = mockClient({ idempotencyKey: true });
    const transform = jest.fn((data: unknown) => JSON.stringify({ wrapped: data }));
    mock.onPost('/charges').replyOnce(503).onPost('/charges').reply(201);
    await settle(
      client.post(
        '/charges',
        { amount: 1 },
        { params: { v: 2 }, headers: { 'X-Trace': 't1' }, transformRequest: [transform] },
      ),
    );
    expect(transform).toHaveBeenCalledTimes(1);
    const [first, second] = mock.history.post;
    for (const attempt of [first!, second!]) {
      expect(attempt).toMatchObject({
        method: 'post',
        url: '/charges',
        params: { v: 2 },
        data: '{"wrapped":{"amount":1}}',
      });
      expect((attempt.headers as Record<string, string>)['X-Trace']).toBe('t1');
    }
  });

  it('does not add back a default header that the first attempt left out', async () => {
    const { client, mock } = mockClient();
    mock.onGet('/items').replyOnce(503).onGet('/items').reply(200);
    await settle(client.get('/items', { headers: { Accept: false } }));
    // Still `false` on the retry, so no adapter adds a value of its own (integration.test.ts
    // checks User-Agent and Accept-Encoding as a real server sees them).
    const accepts = mock.history.get.map((c) => (c.headers as Record<string, unknown>).Accept);
    expect(accepts).toEqual([false, false]);
  });

  it('settles the call once', async () => {
    const { client, mock } = mockClient();
    mock.onGet('/items').replyOnce(503).onGet('/items').reply(200);
    const onSettled = jest.fn();
    await settle(client.get('/items').then(onSettled, onSettled));
    expect(onSettled).toHaveBeenCalledTimes(1);
  });

  it('does not retry a stream body, which the first attempt consumed', async () => {
    const { client, mock } = mockClient({ idempotencyKey: true });
    mock.onPut('/upload').reply(503);
    const error = failureIn(await settle(client.put('/upload', Readable.from(['a', 'b']))));
    expect(error.config?.retryState?.stopReason).toBe('body-not-replayable');
    expect(mock.history.put).toHaveLength(1);
  });
});

describe('attachRetry', () => {
  it('returns a function that removes both interceptors', async () => {
    const { client, mock, detach } = mockClient();
    detach();
    mock.onGet('/items').reply(503);
    const error = failureIn(await settle(client.get('/items')));
    expect(error.config?.retryState).toBeUndefined();
    expect(mock.history.get).toHaveLength(1);
  });

  it('fails at once on bad options, naming the option', () => {
    expect(() => attachRetry(axios.create(), { retries: -1 })).toThrow(
      /`retries` must be a whole number ≥ 0/,
    );
    expect(() => retryInterceptor({ retryBudget: { ratio: 2 } })).toThrow(
      /`retryBudget.ratio` must be a number from 0 to 1/,
    );
  });
});

describe('retryInterceptor used alone', () => {
  // axios-mock-adapter removes `adapter` from the config it handles, so a retry sent from the
  // config alone would miss it: these tests give the instance an adapter of their own instead.
  function bareClient(options = {}, replies: number[] = [503, 200]) {
    const sent: InternalAxiosRequestConfig[] = [];
    const adapter = async (config: InternalAxiosRequestConfig): Promise<AxiosResponse> => {
      sent.push(config);
      const status = replies[Math.min(sent.length, replies.length) - 1]!;
      const response = { status, statusText: '', headers: {}, config, data: '' };
      if (status < 400) return response;
      throw new AxiosError(`status ${status}`, 'ERR_BAD_RESPONSE', config, {}, response);
    };
    const client = axios.create({ baseURL: 'http://api.test', adapter });
    client.interceptors.response.use(
      undefined,
      retryInterceptor({ random: () => 0.5, ...options }),
    );
    return { client, sent };
  }

  it('retries a GET and counts the state from the first failure', async () => {
    const { client, sent } = bareClient();
    jest.advanceTimersByTime(500);
    const { value } = await settle(client.get('/items'));
    expect((value as AxiosResponse).config.retryState).toMatchObject({
      retryCount: 1,
      startedAt: 500,
      delays: [50],
    });
    expect(sent).toHaveLength(2);
  });

  it('cannot stamp a key on the first attempt, so a POST is retried only with a key of its own', async () => {
    const unkeyed = bareClient({ idempotencyKey: true });
    const error = failureIn(await settle(unkeyed.client.post('/charges', {})));
    expect(error.config?.retryState?.stopReason).toBe('not-retryable');
    expect(unkeyed.sent).toHaveLength(1);

    const keyed = bareClient({ idempotencyKey: true });
    const { value } = await settle(
      keyed.client.post('/charges', {}, { headers: { 'Idempotency-Key': 'k1' } }),
    );
    expect(value?.status).toBe(200);
    expect(value?.config.retryState?.idempotencyKey).toBe('k1');
    expect(keyed.sent.map((c) => c.headers['Idempotency-Key'])).toEqual(['k1', 'k1']);
  });
});

describe('a key generator that returns no key', () => {
  it('rejects the call with a clear error and sends nothing', async () => {
    const { client, mock } = mockClient({ idempotencyKey: { generate: () => '' } });
    mock.onPost('/charges').reply(201);
    const { error } = await settle(client.post('/charges', {}));
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(
      /`idempotencyKey.generate\(\)` must be a non-empty string/,
    );
    expect(mock.history.post).toHaveLength(0);
  });
});

describe('wiring details', () => {
  it('passes an error that is not axios’s through unchanged, even one with a config', async () => {
    const { client, mock } = mockClient();
    const failure = Object.assign(new Error('not axios'), { config: { url: '/items' } });
    client.interceptors.request.use(() => Promise.reject(failure));
    mock.onGet('/items').reply(200);
    const { error } = await settle(client.get('/items'));
    expect(error).toBe(failure);
    expect(failure.config).toEqual({ url: '/items' });
  });

  it('leaves the timeout alone when there is no deadline', async () => {
    const { client, mock } = mockClient();
    mock.onGet('/items').reply(200);
    await settle(Promise.all([client.get('/items', { timeout: 5000 }), client.get('/items')]));
    expect(mock.history.get.map((c) => c.timeout)).toEqual([5000, 0]);
  });

  it('sees a key header set by an interceptor that runs after its own', async () => {
    const client = axios.create({ baseURL: 'http://api.test' });
    const mock = new MockAdapter(client);
    // Registered first, so axios runs it after attachRetry's request interceptor.
    client.interceptors.request.use((config) => {
      config.headers.set('Idempotency-Key', 'late');
      return config;
    });
    attachRetry(client, { random: () => 0 });
    mock.onPost('/charges').replyOnce(503).onPost('/charges').reply(201);
    const { value } = await settle(client.post('/charges', {}));
    expect(value?.status).toBe(201);
  });

  it('asks shouldRetry with the error and the state, and follows its answer', async () => {
    const asked: [number | undefined, number][] = [];
    const { client, mock } = mockClient({
      shouldRetry: (error, state) => {
        asked.push([error.response?.status, state.retryCount]);
        return error.response?.status === 404 ? true : undefined;
      },
    });
    mock.onGet('/items').replyOnce(404).onGet('/items').replyOnce(503).onGet('/items').reply(200);
    const { value } = await settle(client.get('/items'));
    expect(value?.status).toBe(200);
    expect(asked).toEqual([
      [404, 0],
      [503, 1],
    ]);
  });

  it('does not ask shouldRetry once retries ran out, so the call stops with retries-exhausted', async () => {
    const asked: number[] = [];
    const { client, mock } = mockClient({
      retries: 2,
      shouldRetry: (_error, state) => {
        asked.push(state.retryCount);
        return state.retryCount < 2 ? undefined : false;
      },
    });
    mock.onGet('/items').reply(503);
    const error = failureIn(await settle(client.get('/items')));
    expect(error.config?.retryState?.stopReason).toBe('retries-exhausted');
    expect(asked).toEqual([0, 1]);
    expect(mock.history.get).toHaveLength(3);
  });

  it('rejects with the error a request interceptor throws on a retry', async () => {
    const { client, mock } = mockClient();
    const failure = new Error('token refresh failed');
    let runs = 0;
    client.interceptors.request.use((config) => {
      runs++;
      if (runs === 2) throw failure;
      return config;
    });
    mock.onGet('/items').replyOnce(503).onGet('/items').reply(200);
    const { error } = await settle(client.get('/items'));
    expect(error).toBe(failure);
    expect(mock.history.get).toHaveLength(1);
  });

  it('replays a request interceptor on retries only when its runWhen allows', async () => {
    const { client, mock } = mockClient();
    const runs: number[] = [];
    client.interceptors.request.use(
      (config) => {
        runs.push(config.retryState?.retryCount ?? 0);
        return config;
      },
      undefined,
      { runWhen: (config) => !config.retryState || config.retryState.retryCount < 1 },
    );
    mock.onGet('/items').replyOnce(503).onGet('/items').replyOnce(503).onGet('/items').reply(200);
    await settle(client.get('/items'));
    // The first attempt runs it before attachRetry's interceptor has made the state; the first
    // retry (count 1) and the second are skipped by runWhen.
    expect(runs).toEqual([0]);
  });

  it('adds no promise hop before the request is sent when every request interceptor is synchronous', () => {
    const client = axios.create({
      adapter: async (config) => {
        sent.push(config.url);
        return { status: 200, statusText: 'OK', headers: {}, config, data: '' };
      },
    });
    const sent: (string | undefined)[] = [];
    attachRetry(client);
    void client.get('/items');
    expect(sent).toEqual(['/items']);
  });
});

describe('cancellation, more', () => {
  it('rejects at once when the signal is already aborted as the sleep starts', async () => {
    const client = axios.create({ baseURL: 'http://api.test' });
    const mock = new MockAdapter(client);
    const controller = new AbortController();
    // Registered before attachRetry: it sees the failure first, and aborts.
    client.interceptors.response.use(undefined, (error: unknown) => {
      controller.abort();
      throw error;
    });
    attachRetry(client, { random: () => 0.5, baseDelayMs: 10_000 });
    mock.onGet('/items').reply(503);
    let settled: unknown;
    client.get('/items', { signal: controller.signal }).catch((error: unknown) => {
      settled = error;
    });
    await jest.advanceTimersByTimeAsync(0);
    expect(axios.isCancel(settled)).toBe(true);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('removes its abort listener once the sleep is over', async () => {
    const listeners = new Set<() => void>();
    const signal = {
      aborted: false,
      addEventListener: (_type: string, listener: () => void) => listeners.add(listener),
      removeEventListener: (_type: string, listener: () => void) => listeners.delete(listener),
    } as unknown as AbortSignal;
    const { client, mock } = mockClient();
    mock.onGet('/items').replyOnce(503).onGet('/items').reply(200);
    const call = client.get('/items', { signal });
    await jest.advanceTimersByTimeAsync(1);
    expect(listeners.size).toBe(1);
    await settle(call);
    expect(listeners.size).toBe(0);
  });
});

describe('retryInterceptor alone, with a key header of its own name', () => {
  it("retries a write that carries the caller's key under that name", async () => {
    const sent: InternalAxiosRequestConfig[] = [];
    const client = axios.create({
      adapter: async (config) => {
        sent.push(config);
        const response = {
          status: sent.length === 1 ? 503 : 200,
          statusText: '',
          headers: {},
          config,
          data: '',
        };
        if (sent.length > 1) return response;
        throw new AxiosError('status 503', 'ERR_BAD_RESPONSE', config, {}, response);
      },
    });
    client.interceptors.response.use(
      undefined,
      retryInterceptor({ random: () => 0, idempotencyKey: { header: 'X-Request-Key' } }),
    );
    const { value } = await settle(
      client.post('/charges', {}, { headers: { 'x-request-key': 'k9' } }),
    );
    expect(value?.status).toBe(200);
    expect(sent).toHaveLength(2);
  });
});
