import { failureIn } from '../helpers/failure';
import { useFakeClock } from '../helpers/fake-clock';
import { mockClient, settle } from '../helpers/mock-client';

// Idempotency keys: stamped on the first attempt, kept on retries, and what a write without one gets.

useFakeClock();

describe('idempotency keys', () => {
  const keyHeader = (config: { headers?: unknown }) =>
    (config.headers as Record<string, string>)['Idempotency-Key'];

  it('stamps a key on the first attempt of a POST and sends the same key on every retry', async () => {
    let n = 0;
    const { client, mock } = mockClient({ idempotencyKey: { generate: () => `key-${++n}` } });
    mock
      .onPost('/charges')
      .replyOnce(503)
      .onPost('/charges')
      .replyOnce(503)
      .onPost('/charges')
      .reply(201);
    const { value } = await settle(client.post('/charges', { amount: 100 }));
    expect(value?.status).toBe(201);
    expect(mock.history.post.map(keyHeader)).toEqual(['key-1', 'key-1', 'key-1']);
    expect(value?.config.retryState?.idempotencyKey).toBe('key-1');
  });

  it('gives separate calls separate keys (uuid v4 by default)', async () => {
    const { client, mock } = mockClient({ idempotencyKey: true });
    mock.onPost('/charges').reply(201);
    await settle(Promise.all([client.post('/charges', {}), client.post('/charges', {})]));
    const [first, second] = mock.history.post.map(keyHeader);
    expect(first).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(second).not.toBe(first);
  });

  it('stamps no key on methods outside idempotencyKey.methods', async () => {
    const { client, mock } = mockClient({ idempotencyKey: true });
    mock.onGet('/items').reply(200);
    mock.onPut('/items/1').reply(200);
    await settle(Promise.all([client.get('/items'), client.put('/items/1', {})]));
    expect([...mock.history.get, ...mock.history.put].map(keyHeader)).toEqual([
      undefined,
      undefined,
    ]);
  });

  it('turns keys on per request', async () => {
    const { client, mock } = mockClient();
    mock.onPost('/charges').replyOnce(503).onPost('/charges').reply(201);
    const { value } = await settle(
      client.post('/charges', {}, { retry: { idempotencyKey: true } }),
    );
    expect(value?.status).toBe(201);
    expect(new Set(mock.history.post.map(keyHeader)).size).toBe(1);
    expect(keyHeader(mock.history.post[0]!)).toBeDefined();
  });

  it("keeps the caller's own header, in any case, and retries the write with it, even with keys off", async () => {
    const { client, mock } = mockClient();
    mock.onPost('/charges').replyOnce(503).onPost('/charges').reply(201);
    const { value } = await settle(
      client.post('/charges', {}, { headers: { 'idempotency-key': 'mine' } }),
    );
    expect(value?.status).toBe(201);
    expect(
      mock.history.post.map((c) => (c.headers as Record<string, string>)['idempotency-key']),
    ).toEqual(['mine', 'mine']);
    expect(value?.config.retryState?.idempotencyKey).toBe('mine');
  });

  it("retries a keyed retry answered 409 (the IETF draft's original still in flight), after a backoff", async () => {
    const { client, mock, events } = mockClient({ idempotencyKey: true });
    mock
      .onPost('/charges')
      .replyOnce(503)
      .onPost('/charges')
      .replyOnce(409)
      .onPost('/charges')
      .reply(201);
    const { value } = await settle(client.post('/charges', {}));
    expect(value?.status).toBe(201);
    expect(events.map((e) => [e.retryCount, e.delayMs])).toEqual([
      [1, 50],
      [2, 100],
    ]);
  });

  it.each<[string, number, boolean]>([
    ['409 to the first attempt of a keyed POST', 409, true],
    ['422 to a retry of a keyed POST', 422, false],
  ])('never retries a %s', async (_name, status, first) => {
    const { client, mock } = mockClient({ idempotencyKey: true });
    if (!first) mock.onPost('/charges').replyOnce(503);
    mock.onPost('/charges').reply(status);
    const error = failureIn(await settle(client.post('/charges', {})));
    expect(error.config?.retryState?.stopReason).toBe('not-retryable');
    expect(mock.history.post).toHaveLength(first ? 1 : 2);
  });

  it('does not retry a write that carries no key', async () => {
    const { client, mock } = mockClient();
    mock.onPost('/charges').reply(503);
    const error = failureIn(await settle(client.post('/charges', {})));
    expect(error.config?.retryState?.stopReason).toBe('not-retryable');
    expect(mock.history.post).toHaveLength(1);
  });
});

describe('a key generator that returns no key', () => {
  it('rejects the call with a clear error and sends nothing', async () => {
    const { client, mock } = mockClient({ idempotencyKey: { generate: () => '' } });
    mock.onPost('/charges').reply(201);
    const { error } = await settle(client.post('/charges', {}));
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(
      /`idempotencyKey.generate\(\)` must be a non-empty string/,
    );
    expect(mock.history.post).toHaveLength(0);
  });
});
