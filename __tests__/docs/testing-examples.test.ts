// docs/testing.md's examples, as written there (besides testing-jest-mock-adapter.test.ts,
// testing-network-fault.test.ts and testing-clocks.test.ts).
import { join } from 'node:path';
import axios from 'axios';
import MockAdapter from 'axios-mock-adapter';
import nock from 'nock';
import { attachRetry, retryInterceptor } from '../../src';
import { type LoopbackServer, startServer } from '../helpers/loopback-server';
import { example, region, runExample } from './doc-examples';

let server: LoopbackServer | undefined;
afterEach(async () => {
  jest.useRealTimers();
  nock.cleanAll();
  await server?.stop();
  server = undefined;
});
// nock patches Node's http module on import; left patched, the next test file in this worker
// reaches its torn-down interceptor (Jest's JEST-01 DeprecationWarning, "'emitter' property was
// accessed on [ClientRequestInterceptor] after it was soft deleted").
afterAll(() => nock.restore());

/** A loopback server that answers 503 to the first `failures` requests, then 200. */
async function flaky(failures: number): Promise<LoopbackServer> {
  const started = await startServer((_arrival, res) => {
    res.statusCode = started.arrivals.length <= failures ? 503 : 200;
    res.end('ok');
  });
  return started;
}

test('jest-mock-adapter: the page shows testing-jest-mock-adapter.test.ts, word for word', () => {
  const file = join(__dirname, 'testing-jest-mock-adapter.test.ts');
  expect(example('docs/testing.md', 'jest-mock-adapter')).toBe(region(file, 'jest-mock-adapter'));
});

test('load-control-off: a suite of 503s through one client never opens its breaker', async () => {
  jest.useFakeTimers();
  const api = axios.create({ baseURL: 'http://api.test' });
  const mock = new MockAdapter(api);
  await runExample(example('docs/testing.md', 'load-control-off'), {
    modules: {},
    globals: { attachRetry, api },
  });
  mock.onGet('/items').reply(503);
  for (let i = 0; i < 15; i++) {
    const call = api.get('/items', { retry: { retries: 0 } }).catch((error: unknown) => error);
    await jest.runAllTimersAsync();
    const error = await call;
    expect(axios.isAxiosError(error) && error.response?.status).toBe(503);
  }
  expect(mock.history.get).toHaveLength(15);
});

describe('real sockets under fake timers', () => {
  it('settle-in-steps: a loopback server, 503 then 200, under jest fake timers', async () => {
    server = await flaky(2);
    jest.useFakeTimers();
    const api = axios.create({ baseURL: server.url });
    attachRetry(api, { random: () => 0.5 });
    // #region settle-in-steps
    /** Advances fake time in steps of `stepMs` until `call` settles; real I/O runs between steps. */
    async function settle<T>(call: Promise<T>, stepMs = 10): Promise<T> {
      let settled = false;
      const done = () => {
        settled = true;
      };
      call.then(done, done);
      while (!settled) await jest.advanceTimersByTimeAsync(stepMs);
      return call;
    }

    const response = await settle(api.get('/items'));
    // #endregion
    expect(response.status).toBe(200);
    expect(response.config.retryState?.delays).toEqual([50, 100]);
    expect(server.arrivals).toHaveLength(3);
  });

  it('advancing once is not enough: the retry is never sent', async () => {
    const realSetTimeout = setTimeout;
    server = await flaky(1);
    jest.useFakeTimers();
    const api = axios.create({ baseURL: server.url });
    attachRetry(api, { random: () => 0.5 });
    let settled = false;
    const call = api.get('/items').finally(() => {
      settled = true;
    });
    await jest.advanceTimersByTimeAsync(1000);
    // Real time passes: the first 503 comes back, and its retry's timer waits for fake time.
    await new Promise((resolve) => realSetTimeout(resolve, 300));
    expect({ settled, arrivals: server.arrivals.length }).toEqual({ settled: false, arrivals: 1 });
    await jest.advanceTimersByTimeAsync(1000);
    await expect(call).resolves.toMatchObject({ status: 200 });
  });

  it('the page shows the steps as this test runs them', () => {
    expect(example('docs/testing.md', 'settle-in-steps')).toBe(
      region(__filename, 'settle-in-steps'),
    );
  });

  it('real-timers-short-delays: real timers, each retry within 10 ms', async () => {
    server = await flaky(3);
    const api = axios.create({ baseURL: server.url });
    await runExample(example('docs/testing.md', 'real-timers-short-delays'), {
      modules: {},
      globals: { attachRetry, api },
    });
    const response = await api.get('/items');
    expect(response.status).toBe(200);
    expect(response.config.retryState?.delays).toHaveLength(3);
    for (const delay of response.config.retryState?.delays ?? []) expect(delay).toBeLessThan(10);
  });
});

describe('nock', () => {
  beforeAll(() => nock.disableNetConnect());
  afterAll(() => nock.enableNetConnect());

  it('nock: a 503, then a 200, retried through nock', async () => {
    const api = axios.create({ baseURL: 'http://api.test' });
    attachRetry(api, { random: () => 0.5, baseDelayMs: 1 });
    await runExample(example('docs/testing.md', 'nock'), { modules: { nock: { default: nock } } });
    const response = await api.get('/items');
    expect(response.data).toEqual(['a']);
    expect(response.config.retryState?.retryCount).toBe(1);
    expect(nock.isDone()).toBe(true);
  });

  it('answers the retries of retryInterceptor alone, which axios-mock-adapter does not', async () => {
    const api = axios.create({ baseURL: 'http://api.test' });
    api.interceptors.response.use(undefined, retryInterceptor({ baseDelayMs: 1 }));
    nock('http://api.test').get('/items').reply(503).get('/items').reply(200, 'ok');
    expect((await api.get('/items')).data).toBe('ok');

    const mocked = axios.create({ baseURL: 'http://api.test' });
    new MockAdapter(mocked).onGet('/items').replyOnce(503).onGet('/items').reply(200, 'ok');
    mocked.interceptors.response.use(undefined, retryInterceptor({ baseDelayMs: 1 }));
    await expect(mocked.get('/items')).rejects.toThrow();
  });

  it('with nock 14, a .delay() past the axios timeout is a timeout (ECONNABORTED)', async () => {
    const api = axios.create({ baseURL: 'http://api.test', timeout: 50 });
    attachRetry(api, { retries: 1, baseDelayMs: 1 });
    nock('http://api.test').get('/slow').times(2).delay(1000).reply(200, 'late');
    const error = await api.get('/slow').catch((e: unknown) => e);
    expect(axios.isAxiosError(error) && error.code).toBe('ECONNABORTED');
    expect(axios.isAxiosError(error) && error.config?.retryState?.retryCount).toBe(1);
  });
});
