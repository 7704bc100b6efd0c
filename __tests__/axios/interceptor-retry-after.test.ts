import { failureIn } from '../helpers/failure';
import { useFakeClock } from '../helpers/fake-clock';
import { mockClient, settle } from '../helpers/mock-client';

// Retry-After: never earlier than the server asked, and not past maxRetryAfterMs.

useFakeClock();

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
