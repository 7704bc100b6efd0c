import axios, { type AxiosError } from 'axios';
import MockAdapter from 'axios-mock-adapter';
import { attachRetry } from '../../src';
import { useFakeClock } from '../helpers/fake-clock';
import { mockClient, settle } from '../helpers/mock-client';

// Cancellation: an abort or a cancel token ends the call at once, with nothing left running.

useFakeClock();

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
