import { failureIn } from '../helpers/failure';
import { useFakeClock } from '../helpers/fake-clock';
import { mockClient, settle } from '../helpers/mock-client';

// The per-request `retry` field: off, field by field, and checked.

useFakeClock();

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
    expect((error as Error).message).toMatch(/`retry.retries` must be an integer in \[0, ∞\]/);
    expect(mock.history.get).toHaveLength(0);
  });
});
