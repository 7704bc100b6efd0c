import { MAX_TIMER_MS, setLongTimeout } from '../../src/runtime/long-timer';
import { sleep } from '../../src/runtime/sleep';
import { mockClient, settle } from '../helpers/mock-client';

// Runtime timers hold at most 2³¹−1 ms; a longer delay fires after 1 ms (Jest's fake timers
// behave the same way), so each test here fails if a long delay reaches setTimeout as it is.

beforeEach(() => jest.useFakeTimers({ now: 0 }));
afterEach(() => jest.useRealTimers());

const DAY = 86_400_000;

describe('timers longer than 2³¹−1 ms', () => {
  it('setLongTimeout fires after the whole delay, and can be cleared in any leg', async () => {
    const fired = jest.fn();
    setLongTimeout(fired, 2 * MAX_TIMER_MS + 5);
    await jest.advanceTimersByTimeAsync(2 * MAX_TIMER_MS + 4);
    expect(fired).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(1);
    expect(fired).toHaveBeenCalledTimes(1);

    const cleared = jest.fn();
    const clear = setLongTimeout(cleared, 2 * MAX_TIMER_MS);
    await jest.advanceTimersByTimeAsync(MAX_TIMER_MS + 1);
    clear();
    await jest.advanceTimersByTimeAsync(MAX_TIMER_MS);
    expect(cleared).not.toHaveBeenCalled();
    expect(jest.getTimerCount()).toBe(0);
  });

  it('sleep waits the whole of a 30-day delay, not 1 ms', async () => {
    const done = jest.fn();
    void sleep(30 * DAY, { cancelError: () => undefined }).then(done);
    await jest.advanceTimersByTimeAsync(MAX_TIMER_MS);
    expect(done).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(30 * DAY - MAX_TIMER_MS - 1);
    expect(done).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(1);
    expect(done).toHaveBeenCalled();
    expect(jest.getTimerCount()).toBe(0);
  });

  it('a Retry-After of a day (the longest read; maxRetryAfterMs: Infinity) is waited in full', async () => {
    const { client, mock, events } = mockClient({ maxRetryAfterMs: Infinity, random: () => 0 });
    mock
      .onGet('/items')
      .replyOnce(503, '', { 'Retry-After': String(24 * 3600) })
      .onGet('/items')
      .reply(200);
    const call = client.get('/items');
    await jest.advanceTimersByTimeAsync(1000);
    expect(events.map((e) => e.delayMs)).toEqual([DAY]);
    expect(mock.history.get).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(DAY - 1001);
    expect(mock.history.get).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1);
    await expect(call).resolves.toMatchObject({ status: 200 });
    expect(mock.history.get).toHaveLength(2);
  });

  it('a backoff draw above 2³¹−1 ms is waited in full', async () => {
    const { client, mock } = mockClient({ baseDelayMs: 3e9, maxDelayMs: 3e9, random: () => 0.9 });
    mock.onGet('/items').replyOnce(503).onGet('/items').reply(200);
    const call = client.get('/items');
    await jest.advanceTimersByTimeAsync(2.7e9 - 1);
    expect(mock.history.get).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1);
    await expect(call).resolves.toMatchObject({ status: 200 });
  });

  it('the deadline clamp never writes an axios timeout above 2³¹−1 ms', async () => {
    const { client, mock } = mockClient({ deadlineMs: 3e9 });
    mock.onGet('/items').reply(200);
    await settle(Promise.all([client.get('/items'), client.get('/items', { timeout: 4e9 })]));
    expect(mock.history.get.map((c) => c.timeout)).toEqual([MAX_TIMER_MS, MAX_TIMER_MS]);
    expect(jest.getTimerCount()).toBe(0);
  });
});
