import axios, { type AxiosAdapter } from 'axios';
import MockAdapter from 'axios-mock-adapter';
import { attachRetry } from '../../src';
import { failureIn } from '../helpers/failure';
import { useFakeClock } from '../helpers/fake-clock';
import { mockClient, settle } from '../helpers/mock-client';

// Wiring details of the interceptors: errors passed through, keys set late, shouldRetry, request interceptors on retries.

useFakeClock();

describe('wiring details', () => {
  it('passes an error that is not axios’s through unchanged, even one with a config', async () => {
    const { client, mock } = mockClient();
    const failure = Object.assign(new Error('not axios'), { config: { url: '/items' } });
    client.interceptors.request.use(() => Promise.reject(failure));
    mock.onGet('/items').reply(200);
    const { error } = await settle(client.get('/items'));
    expect(error).toBe(failure);
    expect(failure.config).toEqual({ url: '/items' });
  });

  it('leaves the timeout alone when there is no deadline', async () => {
    const { client, mock } = mockClient();
    mock.onGet('/items').reply(200);
    await settle(Promise.all([client.get('/items', { timeout: 5000 }), client.get('/items')]));
    expect(mock.history.get.map((c) => c.timeout)).toEqual([5000, 0]);
  });

  it('sees a key header set by an interceptor that runs after its own', async () => {
    const client = axios.create({ baseURL: 'http://api.test' });
    const mock = new MockAdapter(client);
    // Registered first, so axios runs it after attachRetry's request interceptor.
    client.interceptors.request.use((config) => {
      config.headers.set('Idempotency-Key', 'late');
      return config;
    });
    attachRetry(client, { random: () => 0 });
    mock.onPost('/charges').replyOnce(503).onPost('/charges').reply(201);
    const { value } = await settle(client.post('/charges', {}));
    expect(value?.status).toBe(201);
  });

  it('asks shouldRetry with the error and the state, and follows its answer', async () => {
    const asked: [number | undefined, number][] = [];
    const { client, mock } = mockClient({
      shouldRetry: (error, state) => {
        asked.push([error.response?.status, state.retryCount]);
        return error.response?.status === 404 ? true : undefined;
      },
    });
    mock.onGet('/items').replyOnce(404).onGet('/items').replyOnce(503).onGet('/items').reply(200);
    const { value } = await settle(client.get('/items'));
    expect(value?.status).toBe(200);
    expect(asked).toEqual([
      [404, 0],
      [503, 1],
    ]);
  });

  it('does not ask shouldRetry once retries ran out, so the call stops with retries-exhausted', async () => {
    const asked: number[] = [];
    const { client, mock } = mockClient({
      retries: 2,
      shouldRetry: (_error, state) => {
        asked.push(state.retryCount);
        return state.retryCount < 2 ? undefined : false;
      },
    });
    mock.onGet('/items').reply(503);
    const error = failureIn(await settle(client.get('/items')));
    expect(error.config?.retryState?.stopReason).toBe('retries-exhausted');
    expect(asked).toEqual([0, 1]);
    expect(mock.history.get).toHaveLength(3);
  });

  it('rejects with the error a request interceptor throws on a retry', async () => {
    const { client, mock } = mockClient();
    const failure = new Error('token refresh failed');
    let runs = 0;
    client.interceptors.request.use((config) => {
      runs++;
      if (runs === 2) throw failure;
      return config;
    });
    mock.onGet('/items').replyOnce(503).onGet('/items').reply(200);
    const { error } = await settle(client.get('/items'));
    expect(error).toBe(failure);
    expect(mock.history.get).toHaveLength(1);
  });

  it('replays a request interceptor on retries only when its runWhen allows', async () => {
    const { client, mock } = mockClient();
    const runs: number[] = [];
    client.interceptors.request.use(
      (config) => {
        runs.push(config.retryState?.retryCount ?? 0);
        return config;
      },
      undefined,
      { runWhen: (config) => !config.retryState || config.retryState.retryCount < 1 },
    );
    mock.onGet('/items').replyOnce(503).onGet('/items').replyOnce(503).onGet('/items').reply(200);
    await settle(client.get('/items'));
    // The first attempt runs it before attachRetry's interceptor has made the state; the first
    // retry (count 1) and the second are skipped by runWhen.
    expect(runs).toEqual([0]);
  });

  it('adds no promise hop before the request is sent when every request interceptor is synchronous', () => {
    const client = axios.create({
      adapter: async (config) => {
        sent.push(config.url);
        return { status: 200, statusText: 'OK', headers: {}, config, data: '' };
      },
    });
    const sent: (string | undefined)[] = [];
    attachRetry(client);
    void client.get('/items');
    expect(sent).toEqual(['/items']);
  });

  // A list of adapters is axios's since 1.5.1 (`getAdapter`); before, the gate leaves one unwrapped.
  const withLists = typeof axios.getAdapter === 'function' ? it : it.skip;

  withLists(
    'keeps one wrapper for a list of adapters, which axios copies for each call',
    async () => {
      // Node's default adapter is a list (`['xhr', 'http', 'fetch']`): each call's config gets a
      // copy of it. Each list here holds one function, which `getAdapter` returns.
      const seen: { by: string; wrapper: unknown }[] = [];
      const answer =
        (by: string): AxiosAdapter =>
        async (config) => {
          seen.push({ by, wrapper: config.adapter });
          return { data: by, status: 200, statusText: 'OK', headers: {}, config };
        };
      const [a, b] = [answer('a'), answer('b')];
      const client = axios.create({ adapter: [a] });
      attachRetry(client);
      await client.get('/one');
      await client.get('/two');
      // Another list for one call is sent with its own adapter, and the next call with the first.
      await client.get('/three', { adapter: [b] });
      await client.get('/four', { adapter: [a, b] });
      await client.get('/five');
      // A call with retry options of its own gets a wrapper of its own.
      await client.get('/six', { retry: { retries: 1 } });
      await client.get('/seven');
      await client.get('/eight');
      expect(seen.map(({ by }) => by)).toEqual(['a', 'a', 'b', 'a', 'a', 'a', 'a', 'a']);
      const wrappers = seen.map(({ wrapper }) => wrapper);
      expect(wrappers[1]).toBe(wrappers[0]);
      expect(wrappers[2]).not.toBe(wrappers[0]);
      expect(wrappers[5]).not.toBe(wrappers[4]);
      expect(wrappers[7]).toBe(wrappers[6]);
    },
  );
});
