import axios from 'axios';
import { useFakeClock } from '../helpers/fake-clock';
import { mockClient, settle } from '../helpers/mock-client';

// The onRetry hook: its event, its timing, and what its failures and promises do to the call.

useFakeClock();

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
