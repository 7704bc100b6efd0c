import type { AxiosError } from 'axios';
import { useFakeClock } from '../helpers/fake-clock';
import { mockClient, settle } from '../helpers/mock-client';

// The retry budget of a client.

useFakeClock();

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
