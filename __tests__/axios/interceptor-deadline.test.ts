import { failureIn } from '../helpers/failure';
import { useFakeClock } from '../helpers/fake-clock';
import { mockClient, settle } from '../helpers/mock-client';

// The call's deadline: every attempt clamped to it, and the call stopped by it.

useFakeClock();

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
