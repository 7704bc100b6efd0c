import axios from 'axios';
import { DEFAULT_PACING, isolate, loadControlOf } from '../../src';
import { createOutcomeWindow } from '../../src/load-control/outcome-window';
import { createRetryBudget } from '../../src/retry/budget';
import { soloBreaker } from '../helpers/breaker';
import { failureIn } from '../helpers/failure';
import { mockClient, settle } from '../helpers/mock-client';
import { soloPacer } from '../helpers/solo-pacer';

beforeEach(() => {
  jest.useFakeTimers({ now: 0 });
});
afterEach(() => {
  jest.useRealTimers();
});

describe('loadControlOf', () => {
  it('is an empty frozen snapshot before any call, with the whole budget left', () => {
    const { client } = mockClient();
    const view = loadControlOf(client);
    expect(view).toEqual({ retryBudget: 1, scopes: [] });
    expect(Object.isFrozen(view)).toBe(true);
    expect(Object.isFrozen(view.scopes)).toBe(true);
  });

  it('shows each origin and route: breaker, learned rate, hold, in flight and waiting', async () => {
    const { client, mock } = mockClient({ retries: 0 });
    mock.onGet('/items').reply(200);
    for (let i = 0; i < 10; i++) await settle(client.get('/items'));
    mock.onGet('/items').reply(429, '', { 'retry-after': '2' });
    await settle(client.get('/items'));
    const view = loadControlOf(client);
    expect(view.scopes.map(({ origin, route }) => [origin, route])).toEqual([
      ['http://api.test', undefined],
      ['http://api.test', '/items'],
    ]);
    const [origin, route] = view.scopes;
    expect(origin).toMatchObject({ breaker: 'closed', ratePerSecond: undefined, holdMs: 0 });
    expect(origin?.holdUntil).toBeUndefined();
    expect(route).toMatchObject({ breaker: 'closed', holdMs: 2000, inFlight: 0, waiting: 0 });
    expect(route?.ratePerSecond).toBeGreaterThan(0);
    expect(route?.holdUntil).toBe(Date.now() + 2000);
    expect(Object.isFrozen(route)).toBe(true);
  });

  it('counts calls in flight and the share of the retry budget spent', async () => {
    const { client, mock } = mockClient({
      retryBudget: { ratio: 0.5, minRetriesPerSecond: 0 },
    });
    mock
      .onGet('/slow')
      .reply(() => new Promise((resolve) => setTimeout(() => resolve([200]), 1000)));
    mock.onGet('/ok').reply(200);
    mock.onGet('/flaky').replyOnce(503).onGet('/flaky').reply(200);
    await settle(client.get('/ok'));
    await settle(client.get('/ok'));
    expect(loadControlOf(client).retryBudget).toBe(1);
    // Three calls allow 1.5 retries: one was spent.
    await settle(client.get('/flaky'));
    expect(loadControlOf(client).retryBudget).toBeCloseTo(1 / 3);
    const call = client.get('/slow');
    await jest.advanceTimersByTimeAsync(10);
    const slow = loadControlOf(client).scopes.find((s) => s.route === '/slow');
    expect(slow?.inFlight).toBe(1);
    await settle(call);
  });

  it('says retryBudget undefined when the budget is off, and throws for a plain instance', () => {
    const { client } = mockClient({ retryBudget: false });
    expect(loadControlOf(client).retryBudget).toBeUndefined();
    expect(() => loadControlOf(axios.create())).toThrow(TypeError);
  });

  it('forgets the instance once detached', () => {
    const { client, detach } = mockClient();
    detach();
    expect(() => loadControlOf(client)).toThrow(/attachRetry/);
  });
});

describe('isolate (cockatiel)', () => {
  it('isolated: nothing is sent, and a call fails once its retries could have been spent; released: calls go', async () => {
    const { client, mock } = mockClient();
    mock.onGet('/items').reply(200);
    const release = isolate(client, 'http://API.test:80/whatever');
    expect(loadControlOf(client).scopes[0]).toMatchObject({
      origin: 'http://api.test',
      breaker: 'open',
    });
    const startedAt = Date.now();
    // It waits as long as its 3 retries could have taken (backoff ceilings 100 + 200 + 400 ms).
    const error = failureIn(await settle(client.get('/items')));
    expect(error.code).toBe('ERR_CIRCUIT_OPEN');
    expect(error.config?.retryState?.stopReason).toBe('circuit-open');
    expect(Date.now() - startedAt).toBe(700);
    // With no retries, at once.
    const at = Date.now();
    const refused = failureIn(await settle(client.get('/items', { retry: { retries: 0 } })));
    expect(refused.code).toBe('ERR_CIRCUIT_OPEN');
    expect(Date.now()).toBe(at);
    // Held open however long: no break ends it.
    await jest.advanceTimersByTimeAsync(600_000);
    expect(failureIn(await settle(client.get('/items'))).code).toBe('ERR_CIRCUIT_OPEN');
    expect(mock.history.get).toHaveLength(0);
    release();
    release(); // a second call changes nothing
    expect(loadControlOf(client).scopes[0]?.breaker).toBe('closed');
    const { value } = await settle(client.get('/items'));
    expect(value?.status).toBe(200);
    expect(mock.history.get).toHaveLength(1);
  });

  it('wakes a call waiting within its deadline once released', async () => {
    const { client, mock } = mockClient();
    mock.onGet('/items').reply(200);
    const release = isolate(client, 'http://api.test');
    const call = client.get('/items', { retry: { deadlineMs: 5000 } });
    await jest.advanceTimersByTimeAsync(1000);
    expect(loadControlOf(client).scopes[0]?.waiting).toBe(1);
    expect(mock.history.get).toHaveLength(0);
    release();
    const { value } = await settle(call);
    expect(value?.status).toBe(200);
  });

  it('throws a TypeError when the breaker is off', () => {
    const { client } = mockClient({ circuitBreaker: false });
    expect(() => isolate(client, 'http://api.test')).toThrow(
      new TypeError('axios-safe-retry: isolate: circuitBreaker is off.'),
    );
  });
});

describe('the parts', () => {
  it("the breaker's isolate holds it open through probes until the last release", () => {
    const states: string[] = [];
    const b = soloBreaker({
      scope: { origin: 'http://api.test' },
      settings: {
        failureRatio: 1,
        minimumThroughput: 2,
        windowMs: 1000,
        breakDurationMs: 100,
        maxBreakDurationMs: 100,
        onStateChange: (e) => states.push(e.state),
      },
      window: createOutcomeWindow(1000),
      random: () => 1,
      onClose: () => {},
    });
    b.isolate(0);
    b.isolate(0);
    expect(b.admit(1e9)).toBe(Infinity);
    b.record(10, 'success', true); // a probe from before changes nothing
    b.release(20);
    expect(b.state).toBe('open');
    b.release(30);
    expect(b.state).toBe('closed');
    expect(b.admit(40)).toBe('send');
    expect(states).toEqual(['open', 'closed']);
  });

  it("the pacer's rate is undefined unpaced, the learned rate once paced", () => {
    const pacer = soloPacer(DEFAULT_PACING, () => 0.5, 60_000);
    expect(pacer.rate(0)).toBeUndefined();
    pacer.throttle(
      1000,
      { successes: 10, failures: 0, throttles: 1, spanMs: 1000 },
      { kind: 'limit', waitMs: 1000, sentAt: 1000 },
    );
    expect(pacer.rate(1000)).toBe(10);
    expect(pacer.rate(1000 + DEFAULT_PACING.healthyAfterMs)).toBeUndefined();
  });

  it("the budget's remaining share", () => {
    const budget = createRetryBudget({ ratio: 0.5, minRetriesPerSecond: 0, windowMs: 1000 });
    expect(budget.remaining(0)).toBe(0);
    for (let i = 0; i < 4; i++) budget.recordRequest(0);
    expect(budget.remaining(0)).toBe(1);
    budget.tryWithdraw(0);
    expect(budget.remaining(0)).toBe(0.5);
  });
});
