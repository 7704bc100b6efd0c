import axios, { AxiosError, CanceledError } from 'axios';
import { type CircuitStateChange, retryInterceptor } from '../../src';
import { failureIn } from '../helpers/failure';
import { failWith, mockClient, settle } from '../helpers/mock-client';

beforeEach(() => {
  jest.useFakeTimers({ now: 0 });
});
afterEach(() => {
  jest.useRealTimers();
});

const breaker = { minimumThroughput: 4, breakDurationMs: 1000, maxBreakDurationMs: 1000 };

/** A client whose origin answered 503 four times: its breaker is open (a break of 1 s). */
async function openedClient(options = {}) {
  const events: CircuitStateChange[] = [];
  const made = mockClient({
    retries: 0,
    circuitBreaker: { ...breaker, onStateChange: (event) => events.push(event) },
    ...options,
  });
  made.mock.onGet('/items').reply(503);
  for (let i = 0; i < 4; i++) await settle(made.client.get('/items'));
  expect(events.map((e) => e.state)).toEqual(['open']);
  made.mock.resetHistory();
  return { ...made, events };
}

describe('the circuit breaker, through axios', () => {
  it('fails a call without a deadline fast, with an AxiosError that names the origin', async () => {
    const { client, mock } = await openedClient();
    const startedAt = Date.now();
    const error = failureIn(await settle(client.get('/items')));
    expect(axios.isAxiosError(error)).toBe(true);
    expect(error.code).toBe('ERR_CIRCUIT_OPEN');
    expect(error.message).toContain('http://api.test');
    expect(error.response).toBeUndefined();
    expect(error.config?.retryState).toMatchObject({ stopReason: 'circuit-open', retryCount: 0 });
    expect(Date.now()).toBe(startedAt);
    expect(mock.history.get).toHaveLength(0);
  });

  it('stops a retry that meets it with the error of the attempt before, when the break outlasts its retries left', async () => {
    // Backoff ceilings of 100 ms: the last retry could have waited 100 ms, the break is 1 s.
    const { client, mock } = mockClient({ retries: 5, maxDelayMs: 100, circuitBreaker: breaker });
    mock.onGet('/items').reply(503);
    const error = failureIn(await settle(client.get('/items')));
    // Four attempts open the breaker; the fourth retry is held back and the 503 is kept.
    expect(mock.history.get).toHaveLength(4);
    expect(error.response?.status).toBe(503);
    expect(error.config?.retryState?.stopReason).toBe('circuit-open');
  });

  it('without a deadline, waits for a break that ends within what its retries left could take, and goes as the probe (issue 21)', async () => {
    // Load control off would have spent the retries left on the origin: a short outage must fail
    // no call that off would have done. Retry 5's ceiling is 1 600 ms, the break 1 s at most.
    const { client, mock } = mockClient({ retries: 5, circuitBreaker: breaker });
    mock.onGet('/items').replyOnce(503).onGet('/items').replyOnce(503);
    mock.onGet('/items').replyOnce(503).onGet('/items').replyOnce(503);
    mock.onGet('/items').reply(200);
    const { value } = await settle(client.get('/items'));
    expect(value?.status).toBe(200);
    // The probe is the fifth attempt: nothing was sent during the break.
    expect(mock.history.get).toHaveLength(5);
    const state = value?.config.retryState;
    expect(state?.retryCount).toBe(4);
    expect(state?.waitedMs).toBeGreaterThan(0);
  });

  it("without a deadline, counts the wait its retries could have taken from the call's start (issue 21)", async () => {
    // Two calls fail at 0 and at 50 ms (jitter 0.5 of 100): four failures open the breaker at
    // 50 ms for 800 × 0.75 = 600 ms, to 650 ms. Their second retries come at 150 ms, having slept
    // 150 ms of the 100 + 200 + 400 = 700 their retries could have taken: they wait for the
    // break, and go at 650 ms. (Counted from that retry, only the last retry's 400 ms was left.)
    const { client, mock } = mockClient({
      retries: 3,
      circuitBreaker: { minimumThroughput: 4, breakDurationMs: 800, maxBreakDurationMs: 800 },
    });
    mock.onGet('/items').replyOnce(503).onGet('/items').replyOnce(503);
    mock.onGet('/items').replyOnce(503).onGet('/items').replyOnce(503);
    mock.onGet('/items').reply(200);
    const outcomes = await Promise.all([
      settle(client.get('/items')),
      settle(client.get('/items')),
    ]);
    for (const { value } of outcomes) {
      expect(value?.status).toBe(200);
      expect(value?.config.retryState?.waitedMs).toBeGreaterThanOrEqual(650 - 150);
    }
    expect(mock.history.get).toHaveLength(6);
  });

  it('fails a request with retries off fast too', async () => {
    const { client, mock } = await openedClient();
    const error = failureIn(await settle(client.get('/items', { retry: false })));
    expect(error.code).toBe('ERR_CIRCUIT_OPEN');
    expect(error.config?.retryState?.stopReason).toBe('circuit-open');
    expect(mock.history.get).toHaveLength(0);
  });

  it('holds a call with a deadline until a probe succeeds, without using up its retries', async () => {
    const { client, mock, events } = await openedClient();
    mock.onGet('/items').reply(200, 'back');
    const { value } = await settle(client.get('/items', { retry: { deadlineMs: 5000 } }));
    expect(value?.data).toBe('back');
    expect(mock.history.get).toHaveLength(1); // the call itself was the probe
    // A break of 1000 ms × (0.5 + random / 2), random 0.5.
    expect(value?.config.retryState).toMatchObject({ retryCount: 0, waitedMs: 750 });
    expect(events.map((e) => e.state)).toEqual(['open', 'half-open', 'closed']);
  });

  it('releases the calls the probe kept waiting oldest first, not in the order they came to wait', async () => {
    const { client, mock } = mockClient({ retries: 3, circuitBreaker: breaker });
    mock
      .onGet('/items')
      .replyOnce(503)
      .onGet('/items')
      .replyOnce(503)
      .onGet('/items')
      .replyOnce(503);
    mock.onGet('/items').replyOnce(503);
    mock.onGet('/items').reply((config) => [200, config.headers?.['X-Call']]);
    const get = (name: string) =>
      client.get('/items', { retry: { deadlineMs: 5000 }, headers: { 'X-Call': name } });
    for (let i = 0; i < 3; i++) await settle(client.get('/items', { retry: { retries: 0 } }));
    // x's first attempt is the fourth failure: the breaker opens, and x's retry waits (from 50 ms).
    const x = get('x');
    await jest.advanceTimersByTimeAsync(5);
    const z = get('z'); // waits from 5 ms: its timer fires first, and it goes as the probe
    await jest.advanceTimersByTimeAsync(5);
    const y = get('y'); // waits from 10 ms, before x's retry does
    mock.resetHistory();
    const done = await settle(Promise.all([x, y, z]));
    expect(done.value?.map((r) => r.data)).toEqual(['x', 'y', 'z']);
    expect(mock.history.get.map((c) => c.headers?.['X-Call'])).toEqual(['z', 'x', 'y']);
  });

  it('stops with "deadline" when the break ends after the deadline', async () => {
    const { client, mock } = await openedClient();
    const error = failureIn(await settle(client.get('/items', { retry: { deadlineMs: 500 } })));
    expect(error.code).toBe('ERR_CIRCUIT_OPEN');
    expect(error.config?.retryState?.stopReason).toBe('deadline');
    expect(mock.history.get).toHaveLength(0);
  });

  it('stops with "deadline" when the deadline passes while a probe is out', async () => {
    const { client, mock } = await openedClient();
    mock.onGet('/items').reply(() => new Promise(() => {})); // the probe hangs
    void client.get('/items', { retry: { deadlineMs: 60_000 } }).catch(() => undefined);
    await jest.advanceTimersByTimeAsync(1000);
    const error = failureIn(await settle(client.get('/items', { retry: { deadlineMs: 2000 } })));
    expect(error.config?.retryState?.stopReason).toBe('deadline');
    expect(mock.history.get).toHaveLength(1);
  });

  it('rejects a waiting call at once when it is aborted, and sends nothing for it', async () => {
    const { client, mock } = await openedClient();
    const controller = new AbortController();
    const call = client.get('/items', { retry: { deadlineMs: 5000 }, signal: controller.signal });
    const outcome = call.then(
      () => ({ error: undefined }),
      (error: unknown) => ({ error }),
    );
    await jest.advanceTimersByTimeAsync(100);
    controller.abort();
    const { error } = await outcome;
    expect(error).toBeInstanceOf(CanceledError);
    expect(Date.now()).toBe(100);
    await jest.runAllTimersAsync();
    expect(mock.history.get).toHaveLength(0);
  });

  it('keeps one breaker per origin', async () => {
    const { client, mock } = await openedClient();
    mock.onGet('http://other.test/items').reply(200, 'fine');
    const { value } = await settle(client.get('http://other.test/items'));
    expect(value?.data).toBe('fine');
    expect(value?.config.retryState?.waitedMs).toBeUndefined();
  });

  it('can be turned off', async () => {
    const { client, mock } = mockClient({ retries: 0, circuitBreaker: false });
    mock.onGet('/items').reply(503);
    for (let i = 0; i < 20; i++) await settle(client.get('/items'));
    expect(mock.history.get).toHaveLength(20);
  });

  it("counts nothing of the 503s that the caller's validateStatus accepts (issue 21)", async () => {
    // A caller that reads every status itself: off resolves all of its calls, and so must this.
    const events: CircuitStateChange[] = [];
    const { client, mock } = mockClient({
      circuitBreaker: { ...breaker, onStateChange: (event) => events.push(event) },
    });
    mock.onGet('/items').reply(503);
    const all = { validateStatus: () => true };
    for (let i = 0; i < 8; i++) {
      const { value } = await settle(client.get('/items', all));
      expect(value?.status).toBe(503);
    }
    expect(events).toEqual([]);
    expect(mock.history.get).toHaveLength(8);
    // The same status, rejected by the default validateStatus, still counts.
    for (let i = 0; i < 4; i++) await settle(client.get('/items', { retry: { retries: 0 } }));
    expect(events.map((e) => e.state)).toEqual(['open']);
  });

  it('with retryInterceptor alone, counts first attempts that fail, and holds retries only', async () => {
    let sent = 0;
    // axios-mock-adapter removes `adapter` from the config, so a retry sent from the config alone
    // would miss it: an adapter of the instance's own.
    const client = axios.create({
      baseURL: 'http://api.test',
      adapter: async (config) => {
        sent++;
        const response = { status: 503, statusText: '', headers: {}, config, data: '' };
        throw new AxiosError('status 503', 'ERR_BAD_RESPONSE', config, {}, response);
      },
    });
    client.interceptors.response.use(
      undefined,
      retryInterceptor({ retries: 1, random: () => 0.5, circuitBreaker: breaker }),
    );
    for (let i = 0; i < 2; i++) await settle(client.get('/items')); // 4 attempts: open
    expect(sent).toBe(4);
    const error = failureIn(await settle(client.get('/items')));
    // Its first attempt went out; its retry was held back.
    expect(sent).toBe(5);
    expect(error.response?.status).toBe(503);
    expect(error.config?.retryState?.stopReason).toBe('circuit-open');
  });
});

describe('pacing, through axios', () => {
  it('adds no wait before any throttle signal', async () => {
    const { client, mock } = mockClient();
    mock.onGet('/items').reply(200);
    const { value } = await settle(client.get('/items'));
    expect(value?.config.retryState?.waitedMs).toBeUndefined();
  });

  it('after a 429, spaces every send to the origin at the rate it accepted', async () => {
    const { client, mock } = mockClient({ retries: 0 });
    mock
      .onGet('/items')
      .replyOnce(200)
      .onGet('/items')
      .replyOnce(429, undefined, { 'retry-after': '0' })
      .onGet('/items')
      .reply(200);
    await settle(client.get('/items'));
    await settle(client.get('/items'));
    // A 429 with a wait at the floor after one success: its rate is searched from 1 accepted
    // over a tenth of a second (10 a second), ramping up from there.
    const sentAt: number[] = [];
    mock.onGet('/items').reply(() => {
      sentAt.push(Date.now());
      return [200];
    });
    const done = await settle(Promise.all([client.get('/items'), client.get('/items')]));
    expect(done.value?.[1]?.config.retryState?.waitedMs).toBeGreaterThan(0);
    // The slow start's first gap at 10 a second: ln(1 + 4 ln 2 / 10) / (4 ln 2) s, 88 ms.
    expect((sentAt[1] as number) - (sentAt[0] as number)).toBeGreaterThanOrEqual(88);
    expect((sentAt[1] as number) - (sentAt[0] as number)).toBeLessThan(100);
  });

  it('holds the origin when a response says the quota is spent, before any 429', async () => {
    const { client, mock } = mockClient();
    mock
      .onGet('/items')
      .replyOnce(200, 'last', { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '30' })
      .onGet('/items')
      .reply(200);
    await settle(client.get('/items'));
    const { value } = await settle(client.get('/items'));
    expect(Date.now()).toBeGreaterThanOrEqual(30_000);
    expect(value?.config.retryState?.waitedMs).toBeGreaterThanOrEqual(30_000);
  });

  it("retries GitHub's 403 with nothing remaining, after the reset", async () => {
    const { client, mock, events } = mockClient({ pacing: false });
    mock
      .onGet('/items')
      .replyOnce(403, 'limited', { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '2' })
      .onGet('/items')
      .reply(200, 'ok');
    const { value } = await settle(client.get('/items'));
    expect(value?.data).toBe('ok');
    expect(events[0]?.delayMs).toBeGreaterThanOrEqual(2000);
  });

  it('waits for RateLimit-Reset when a 429 has no Retry-After', async () => {
    const { client, mock, events } = mockClient({ pacing: false });
    mock
      .onGet('/items')
      .replyOnce(429, '', { ratelimit: 'limit=10, remaining=0, reset=3' })
      .onGet('/items')
      .reply(200);
    await settle(client.get('/items'));
    expect(events[0]?.delayMs).toBeGreaterThanOrEqual(3000);
  });

  it("holds nothing for a 429 that the caller's validateStatus accepts (issue 21)", async () => {
    const { client, mock } = mockClient();
    mock.onGet('/items').replyOnce(429, '', { 'retry-after': '30' }).onGet('/items').reply(200);
    const accepted = await settle(client.get('/items', { validateStatus: () => true }));
    expect(accepted.value?.status).toBe(429);
    const { value } = await settle(client.get('/items'));
    expect(value?.status).toBe(200);
    expect(value?.config.retryState?.waitedMs).toBeUndefined();
    expect(Date.now()).toBe(0);
  });

  it('stops a call with "deadline" when no slot comes before it', async () => {
    const { client, mock } = mockClient({ retries: 0 });
    mock
      .onGet('/items')
      .replyOnce(200, '', { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '30' });
    await settle(client.get('/items'));
    const error = failureIn(await settle(client.get('/items', { retry: { deadlineMs: 1000 } })));
    expect(error.code).toBe('ERR_RATE_LIMITED');
    expect(error.config?.retryState?.stopReason).toBe('deadline');
    expect(mock.history.get).toHaveLength(1);
  });

  it('can be turned off', async () => {
    const { client, mock } = mockClient({ pacing: false });
    mock
      .onGet('/items')
      .reply(200, '', { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '30' });
    await settle(client.get('/items'));
    const { value } = await settle(client.get('/items'));
    expect(value?.config.retryState?.waitedMs).toBeUndefined();
  });
});

describe('the retry budget beside load control', () => {
  const stingy = { ratio: 0, minRetriesPerSecond: 0.1, windowMs: 10_000 }; // one retry a window

  it('does not charge retries to an origin that mostly succeeds', async () => {
    const { client, mock } = mockClient({ retries: 1, retryBudget: stingy });
    // The same route (the query is not part of it) mostly succeeds.
    mock.onGet('/flaky?ok').reply(200);
    for (let i = 0; i < 10; i++) await settle(client.get('/flaky?ok'));
    mock.onGet('/flaky').replyOnce(503).onGet('/flaky').replyOnce(200);
    mock.onGet('/flaky').replyOnce(503).onGet('/flaky').replyOnce(200);
    mock.onGet('/flaky').replyOnce(503).onGet('/flaky').replyOnce(200);
    for (let i = 0; i < 3; i++) {
      const { value } = await settle(client.get('/flaky'));
      expect(value?.status).toBe(200);
    }
  });

  it('still charges retries to an origin that mostly fails', async () => {
    const { client, mock } = mockClient({
      retries: 1,
      retryBudget: stingy,
      circuitBreaker: false,
    });
    mock.onGet('/items').reply(503);
    await settle(client.get('/items'));
    const error = failureIn(await settle(client.get('/items')));
    expect(error.config?.retryState?.stopReason).toBe('budget-exhausted');
  });

  it('does not charge retries to a paced origin', async () => {
    const { client, mock } = mockClient({ retries: 1, retryBudget: stingy, circuitBreaker: false });
    mock.onGet('/items').replyOnce(200);
    await settle(client.get('/items'));
    for (let i = 0; i < 3; i++) {
      mock.onGet('/items').replyOnce(429, undefined, { 'retry-after': '0' });
      mock.onGet('/items').replyOnce(200);
    }
    for (let i = 0; i < 3; i++) {
      const { value } = await settle(client.get('/items'));
      expect(value?.status).toBe(200);
    }
  });
});

describe('connection failures and the breaker', () => {
  it('counts refused connections as failures', async () => {
    const { client, mock } = mockClient({ retries: 0, circuitBreaker: breaker });
    mock.onGet('/items').reply(failWith('ECONNREFUSED'));
    for (let i = 0; i < 4; i++) await settle(client.get('/items'));
    const error = failureIn(await settle(client.get('/items')));
    expect(error.code).toBe('ERR_CIRCUIT_OPEN');
  });

  it('counts other 4xx as successes', async () => {
    const { client, mock } = mockClient({ retries: 0, circuitBreaker: breaker });
    mock.onGet('/items').reply(404);
    for (let i = 0; i < 10; i++) await settle(client.get('/items'));
    expect(mock.history.get).toHaveLength(10);
  });
});

describe('long holds', () => {
  it('holds for a quota that resets in a day (the longest a header is read), probing it meanwhile', async () => {
    const { client, mock } = mockClient({ retries: 0, maxRetryAfterMs: Infinity });
    const day = 24 * 3600;
    mock
      .onGet('/items')
      .replyOnce(200, '', { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(day) })
      .onGet('/items')
      .reply(200);
    await settle(client.get('/items'));
    const call = client.get('/items');
    await jest.advanceTimersByTimeAsync(day * 1000 - 1000);
    expect(mock.history.get).toHaveLength(1);
    const { value } = await settle(call);
    expect(value?.config.retryState?.waitedMs).toBeGreaterThanOrEqual(day * 1000);
  });

  it('ignores a reset of 30 days: garbage, not a wait', async () => {
    const { client, mock } = mockClient({ retries: 0 });
    mock
      .onGet('/items')
      .replyOnce(200, '', {
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(30 * 86_400),
      })
      .onGet('/items')
      .reply(200);
    await settle(client.get('/items'));
    const call = client.get('/items');
    await jest.advanceTimersByTimeAsync(2000); // the quota is spent, its reset unread: a second
    const { value } = await settle(call);
    expect(value?.status).toBe(200);
  });
});
