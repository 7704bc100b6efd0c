import { Readable } from 'node:stream';
import axios, { type AxiosError } from 'axios';
import MockAdapter from 'axios-mock-adapter';
import { attachRetry } from '../../src';
import { failureIn } from '../helpers/failure';
import { useFakeClock } from '../helpers/fake-clock';
import { mockClient, settle } from '../helpers/mock-client';

// Re-issuing a call: which interceptors see each attempt, and what is sent again.

useFakeClock();

describe('re-issuing the same call', () => {
  it('runs request interceptors on every attempt, and later response interceptors once per call', async () => {
    const { client, mock } = mockClient();
    let token = 0;
    client.interceptors.request.use((config) => {
      config.headers.set('Authorization', `Bearer ${++token}`);
      return config;
    });
    const seen: (number | string)[] = [];
    client.interceptors.response.use(
      (response) => {
        seen.push(response.status);
        return response;
      },
      (error: AxiosError) => {
        seen.push(`error ${error.response?.status}`);
        throw error;
      },
    );
    mock.onGet('/items').replyOnce(503).onGet('/items').replyOnce(503).onGet('/items').reply(200);
    await settle(client.get('/items'));
    expect(
      mock.history.get.map((c) => (c.headers as Record<string, string>).Authorization),
    ).toEqual(['Bearer 1', 'Bearer 2', 'Bearer 3']);
    expect(seen).toEqual([200]);

    mock.reset();
    seen.length = 0;
    mock.onGet('/items').reply(503);
    await settle(client.get('/items').catch(() => undefined));
    expect(seen).toEqual(['error 503']);
  });

  it('shows response interceptors added before attachRetry every attempt, as they see the first', async () => {
    const client = axios.create({ baseURL: 'http://api.test' });
    const mock = new MockAdapter(client);
    const seen: (number | undefined)[] = [];
    client.interceptors.response.use(
      (response) => {
        seen.push(response.status);
        return response;
      },
      (error: AxiosError) => {
        seen.push(error.response?.status);
        throw error;
      },
    );
    attachRetry(client, { random: () => 0 });
    mock.onGet('/items').replyOnce(503).onGet('/items').replyOnce(502).onGet('/items').reply(200);
    const { value } = await settle(client.get('/items'));
    expect(value?.status).toBe(200);
    expect(seen).toEqual([503, 502, 200]);
  });

  it('shapes a retried success as a first-try success, through an interceptor added before it', async () => {
    const client = axios.create({ baseURL: 'http://api.test' });
    const mock = new MockAdapter(client);
    client.interceptors.response.use((response) => response.data);
    attachRetry(client, { random: () => 0 });
    const after: unknown[] = [];
    client.interceptors.response.use((result) => {
      after.push(result);
      return result;
    });
    mock.onGet('/first-try').reply(200, { items: [1] });
    mock
      .onGet('/retried')
      .replyOnce(503)
      .onGet('/retried')
      .reply(200, { items: [1] });
    expect((await settle(client.get('/first-try'))).value).toEqual({ items: [1] });
    expect((await settle(client.get('/retried'))).value).toEqual({ items: [1] });
    expect(after).toEqual([{ items: [1] }, { items: [1] }]);
  });

  it('skips a response interceptor ejected before the retry, and one added after attachRetry', async () => {
    const client = axios.create({ baseURL: 'http://api.test' });
    const mock = new MockAdapter(client);
    const runs: string[] = [];
    const ejected = client.interceptors.response.use(undefined, (error: AxiosError) => {
      runs.push('ejected');
      throw error;
    });
    client.interceptors.response.use(undefined, (error: AxiosError) => {
      runs.push('before');
      throw error;
    });
    attachRetry(client, { random: () => 0, retries: 1 });
    client.interceptors.response.use(undefined, (error: AxiosError) => {
      runs.push('after');
      throw error;
    });
    mock.onGet('/items').reply(503);
    const call = client.get('/items');
    client.interceptors.response.eject(ejected);
    await settle(call.catch(() => undefined));
    // The first attempt ran through the chain axios built before the eject.
    expect(runs).toEqual(['ejected', 'before', 'before', 'after']);
  });

  it('sends the same method, URL, params, headers and body, transformed once', async () => {
    const { client, mock } = mockClient({ idempotencyKey: true });
    const transform = jest.fn((data: unknown) => JSON.stringify({ wrapped: data }));
    mock.onPost('/charges').replyOnce(503).onPost('/charges').reply(201);
    await settle(
      client.post(
        '/charges',
        { amount: 1 },
        { params: { v: 2 }, headers: { 'X-Trace': 't1' }, transformRequest: [transform] },
      ),
    );
    expect(transform).toHaveBeenCalledTimes(1);
    const [first, second] = mock.history.post;
    for (const attempt of [first!, second!]) {
      expect(attempt).toMatchObject({
        method: 'post',
        url: '/charges',
        params: { v: 2 },
        data: '{"wrapped":{"amount":1}}',
      });
      expect((attempt.headers as Record<string, string>)['X-Trace']).toBe('t1');
    }
  });

  it('does not add back a default header that the first attempt left out', async () => {
    const { client, mock } = mockClient();
    mock.onGet('/items').replyOnce(503).onGet('/items').reply(200);
    await settle(client.get('/items', { headers: { Accept: false } }));
    // Still `false` on the retry, so no adapter adds a value of its own (integration.test.ts
    // checks User-Agent and Accept-Encoding as a real server sees them).
    const accepts = mock.history.get.map((c) => (c.headers as Record<string, unknown>).Accept);
    expect(accepts).toEqual([false, false]);
  });

  it('settles the call once', async () => {
    const { client, mock } = mockClient();
    mock.onGet('/items').replyOnce(503).onGet('/items').reply(200);
    const onSettled = jest.fn();
    await settle(client.get('/items').then(onSettled, onSettled));
    expect(onSettled).toHaveBeenCalledTimes(1);
  });

  it('does not retry a stream body, which the first attempt consumed', async () => {
    const { client, mock } = mockClient({ idempotencyKey: true });
    mock.onPut('/upload').reply(503);
    const error = failureIn(await settle(client.put('/upload', Readable.from(['a', 'b']))));
    expect(error.config?.retryState?.stopReason).toBe('body-not-replayable');
    expect(mock.history.put).toHaveLength(1);
  });
});
