import axios from 'axios';
import { failureIn } from '../helpers/failure';
import { useFakeClock } from '../helpers/fake-clock';
import { failWith, mockClient, settle } from '../helpers/mock-client';

// Retrying a failed call: which failures are retried, how long it sleeps, what it rejects with.

useFakeClock();

describe('retrying a failed call', () => {
  it('rides through 503s with full-jitter delays and records the state on the config', async () => {
    const { client, mock, events } = mockClient();
    mock
      .onGet('/items')
      .replyOnce(503)
      .onGet('/items')
      .replyOnce(503)
      .onGet('/items')
      .reply(200, 'ok');
    const { value } = await settle(client.get('/items'));
    expect(value?.data).toBe('ok');
    expect(mock.history.get).toHaveLength(3);
    expect(events.map((e) => [e.retryCount, e.delayMs, e.error.response?.status])).toEqual([
      [1, 50, 503],
      [2, 100, 503],
    ]);
    expect(value?.config.retryState).toMatchObject({
      retryCount: 2,
      startedAt: 0,
      delays: [50, 100],
    });
    expect(value?.config.retryState?.stopReason).toBeUndefined();
  });

  it('sleeps exactly the drawn delay before each retry, not less', async () => {
    const { client, mock } = mockClient({ random: () => 0.999 });
    mock.onGet('/items').replyOnce(503).onGet('/items').reply(200);
    const call = client.get('/items');
    await jest.advanceTimersByTimeAsync(99);
    expect(mock.history.get).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(mock.history.get).toHaveLength(2);
    await expect(call).resolves.toMatchObject({ status: 200 });
  });

  it("rejects with axios's own last error, unchanged, once retries run out", async () => {
    const { client, mock } = mockClient({ retries: 2 });
    mock
      .onGet('/items')
      .replyOnce(503, 'first')
      .onGet('/items')
      .replyOnce(502, 'second')
      .onGet('/items')
      .reply(500, 'third');
    const error = failureIn(await settle(client.get('/items')));
    expect(axios.isAxiosError(error)).toBe(true);
    expect(error.response?.data).toBe('third');
    expect(error.config?.retryState).toMatchObject({
      retryCount: 2,
      stopReason: 'retries-exhausted',
    });
    expect(mock.history.get).toHaveLength(3);
  });

  it('does not retry a 4xx other than 408 and 429', async () => {
    const { client, mock } = mockClient();
    mock.onGet('/items').reply(404);
    const error = failureIn(await settle(client.get('/items')));
    expect(error.config?.retryState?.stopReason).toBe('not-retryable');
    expect(mock.history.get).toHaveLength(1);
  });

  it('retries a timeout, a network error and a reset connection of a GET', async () => {
    const { client, mock } = mockClient();
    mock
      .onGet('/items')
      .timeoutOnce()
      .onGet('/items')
      .replyOnce(failWith('ERR_NETWORK'))
      .onGet('/items')
      .replyOnce(failWith('ECONNRESET'))
      .onGet('/items')
      .reply(200);
    const { value } = await settle(client.get('/items'));
    expect(value?.status).toBe(200);
    expect(mock.history.get).toHaveLength(4);
  });

  it('retries a POST whose connection was refused: it never reached the server', async () => {
    const { client, mock } = mockClient();
    mock.onPost('/charges').replyOnce(failWith('ECONNREFUSED')).onPost('/charges').reply(201);
    const { value } = await settle(client.post('/charges', {}));
    expect(value?.status).toBe(201);
  });

  it('does not retry a failure it cannot recognise (no code, no response)', async () => {
    const { client, mock } = mockClient();
    mock.onGet('/items').networkError();
    const error = failureIn(await settle(client.get('/items')));
    expect(error.config?.retryState?.stopReason).toBe('not-retryable');
    expect(mock.history.get).toHaveLength(1);
  });

  it('does not retry a timed-out POST that has no idempotency key', async () => {
    const { client, mock } = mockClient();
    mock.onPost('/charges').timeout();
    const error = failureIn(await settle(client.post('/charges', { amount: 100 })));
    expect(error.code).toBe('ECONNABORTED');
    expect(error.config?.retryState?.stopReason).toBe('not-retryable');
    expect(mock.history.post).toHaveLength(1);
  });

  it('leaves no timer running once the call settles', async () => {
    const { client, mock } = mockClient();
    mock.onGet('/items').replyOnce(503).onGet('/items').reply(200);
    await settle(client.get('/items'));
    expect(jest.getTimerCount()).toBe(0);
  });

  it('passes through an error that is not an axios error, unchanged', async () => {
    const { client, mock } = mockClient();
    const failure = new Error('interceptor bug');
    client.interceptors.request.use(() => {
      throw failure;
    });
    mock.onGet('/items').reply(200);
    const { error } = await settle(client.get('/items'));
    expect(error).toBe(failure);
    expect(mock.history.get).toHaveLength(0);
  });
});
