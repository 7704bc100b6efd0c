import { isolate, loadControlOf } from '../../src';
import type { LoadControlStore } from '../../src/contract/store';
import { createLoadControl } from '../../src/load-control/load-control';
import { memoryStore } from '../../src/load-control/store';
import { DEFAULT_CIRCUIT_BREAKER, DEFAULT_PACING } from '../../src/options/options';
import { failureIn } from '../helpers/failure';
import { mockClient, settle } from '../helpers/mock-client';

// Issue 25, item 2: one clock boundary. Load control keeps its scopes' times (holds, breaks,
// latencies) on the store's clock; every time it is given on this process's clock is read on the
// store's once. A store whose clock is an hour ahead of this process's (a Redis server on another
// machine) changes nothing a caller sees. With a mock adapter and fake timers.

const HOUR_MS = 3_600_000;

/** The memory store, with a clock `offsetMs` ahead of this process's. */
const storeAhead = (offsetMs: number): LoadControlStore => ({
  ...memoryStore(),
  clockOffset: () => offsetMs,
});

beforeEach(() => {
  jest.useFakeTimers({ now: Date.UTC(2026, 0, 1) });
});
afterEach(() => {
  jest.useRealTimers();
});

describe.each([
  ['ahead', HOUR_MS],
  ['behind', -HOUR_MS],
])('a store whose clock is an hour %s', (_label, offsetMs) => {
  it('loadControlOf shows a hold of Retry-After: 2 as 2 s, not an hour more or less', async () => {
    const { client, mock } = mockClient({ retries: 0, store: storeAhead(offsetMs) });
    mock.onGet('/items').replyOnce(429, '', { 'retry-after': '2' });
    await settle(client.get('/items'));
    const route = loadControlOf(client).scopes.find((s) => s.route === '/items');
    expect(route?.holdMs).toBeGreaterThan(1900);
    expect(route?.holdMs).toBeLessThanOrEqual(2000);
    // On the clock of `retryState.startedAt`, which reads like Date.now().
    expect((route?.holdUntil ?? 0) - Date.now()).toBe(route?.holdMs);
  });

  it('the latency of an origin is the time its attempts took', () => {
    const control = createLoadControl({
      circuitBreaker: DEFAULT_CIRCUIT_BREAKER,
      pacing: DEFAULT_PACING,
      random: () => 0.5,
      probeEveryMs: 60_000,
      store: storeAhead(offsetMs),
    });
    const verdict = control.admit(['http://api.test', 'items'], 1000, Infinity);
    if (verdict.kind !== 'go') throw new Error(`not admitted: ${verdict.kind}`);
    control.settle(verdict.pass, 1010, { result: 'success', sentAt: 1000 });
    expect(control.latencyOf('http://api.test')).toBe(10);
  });

  it('a call waiting at an isolated breaker goes once it is released', async () => {
    const { client, mock } = mockClient({ retries: 0, store: storeAhead(offsetMs) });
    mock.onGet('/items').reply(200, 'ok');
    await settle(client.get('/items'));
    const release = isolate(client, 'http://api.test');
    const waiting = client.get('/items', { retry: { deadlineMs: 5000 } });
    await jest.advanceTimersByTimeAsync(100);
    expect(mock.history.get).toHaveLength(1);
    release();
    const { value } = await settle(waiting);
    expect(value?.data).toBe('ok');
  });

  it('isolate holds the breaker open, and its release lets calls through at once', async () => {
    const { client, mock } = mockClient({ retries: 0, store: storeAhead(offsetMs) });
    mock.onGet('/items').reply(200, 'ok');
    await settle(client.get('/items'));
    const release = isolate(client, 'http://api.test');
    expect(failureIn(await settle(client.get('/items'))).code).toBe('ERR_CIRCUIT_OPEN');
    release();
    expect((await settle(client.get('/items'))).value?.data).toBe('ok');
    expect(loadControlOf(client).scopes.every((s) => s.breaker === 'closed')).toBe(true);
  });
});

it('shouldRetry is awaited within the deadline on the monotonic clock, whatever the wall clock says', async () => {
  const { client, mock } = mockClient({
    deadlineMs: 1000,
    shouldRetry: () => new Promise<boolean>(() => {}),
  });
  mock.onGet('/items').reply(503);
  let settled = false;
  const call = client.get('/items').finally(() => {
    settled = true;
  });
  call.catch(() => {});
  // The wall clock steps back an hour (NTP, a VM resumed) before the failure is decided.
  const realNow = Date.now.bind(Date);
  const step = jest.spyOn(Date, 'now').mockImplementation(() => realNow() - HOUR_MS);
  try {
    await jest.advanceTimersByTimeAsync(1100);
    expect(settled).toBe(true);
    const error = failureIn(await settle(call));
    expect(error.config?.retryState?.stopReason).toBe('deadline');
  } finally {
    step.mockRestore();
  }
});
