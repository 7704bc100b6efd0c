// Misuses of the API fail at once, with a TypeError that says what to write instead.
import axios, { type AxiosInstance } from 'axios';
import MockAdapter from 'axios-mock-adapter';
import { attachRetry, retryInterceptor } from '../../src';
import { type LoopbackServer, startServer } from '../helpers/loopback-server';

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

describe('retryInterceptor in the success slot: `use(retryInterceptor())`', () => {
  it('rejects a successful call with a TypeError that shows the working forms', async () => {
    server = await startServer((_arrival, res) => res.end('ok'));
    const client = axios.create({ baseURL: server.url });
    // @ts-expect-error the one-argument form does not compile either
    client.interceptors.response.use(retryInterceptor({ retries: 2 }));
    const error = await client.get('/items').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TypeError);
    const { message, cause } = error as TypeError;
    expect(message).toMatch(
      /^axios-safe-retry: `retryInterceptor\(\)` got a 200 response, not an error: `use\(undefined/,
    );
    expect(message).toContain('`use(undefined, retryInterceptor())`');
    expect(message).toContain('`attachRetry(instance)`');
    expect((cause as { data?: unknown }).data).toBe('ok');
    expect(server.arrivals).toHaveLength(1);
  });

  it('names a value that is not an error, when an earlier interceptor unwrapped the response', async () => {
    const handler = retryInterceptor();
    await expect(handler({ items: [] } as unknown as Error)).rejects.toThrow(
      /got an object, not an error.*use\(undefined, retryInterceptor/,
    );
    await expect(handler('text' as unknown as Error)).rejects.toBeInstanceOf(TypeError);
  });

  it('still passes an error that is not axios’s through unchanged', async () => {
    const failure = new RangeError('bug elsewhere');
    await expect(retryInterceptor()(failure)).rejects.toBe(failure);
  });
});

describe('attachRetry on an instance that already has it', () => {
  function client(): { api: AxiosInstance; mock: MockAdapter } {
    const api = axios.create({ baseURL: 'http://api.test' });
    return { api, mock: new MockAdapter(api) };
  }

  it('throws a TypeError that says to detach first, and leaves the first attachment in place', async () => {
    const { api, mock } = client();
    attachRetry(api, { retries: 1, baseDelayMs: 0 });
    expect(() => attachRetry(api, { retries: 4 })).toThrow(TypeError);
    expect(() => attachRetry(api, { retries: 4 })).toThrow(/already attached: detach first/);
    mock.onGet('/items').reply(503);
    const error = await api.get('/items').catch((e: unknown) => e);
    expect((error as { config: { retryState: unknown } }).config.retryState).toMatchObject({
      retryCount: 1,
      stopReason: 'retries-exhausted',
    });
    expect(mock.history.get).toHaveLength(2);
  });

  it('attaches again once the first one is detached', async () => {
    const { api, mock } = client();
    const detach = attachRetry(api, { retries: 1, baseDelayMs: 0 });
    detach();
    attachRetry(api, { retries: 2, baseDelayMs: 0 });
    mock.onGet('/items').reply(503);
    await api.get('/items').catch(() => undefined);
    expect(mock.history.get).toHaveLength(3);
  });

  it('tells the default axios the same way', () => {
    const detach = attachRetry(axios);
    try {
      expect(() => attachRetry(axios)).toThrow(/already attached/);
    } finally {
      detach();
    }
  });
});

describe('attachRetry without an instance', () => {
  it.each<[string, unknown[], string]>([
    ['no argument', [], 'got undefined'],
    ['options only', [{ retries: 3 }], 'got an object'],
    ['null', [null], 'got null'],
  ])(
    '%s: a TypeError that asks for an axios instance or the default axios',
    (_label, args, got) => {
      const attach = attachRetry as (...args: unknown[]) => unknown;
      expect(() => attach(...args)).toThrow(TypeError);
      expect(() => attach(...args)).toThrow(
        `axios-safe-retry: \`attachRetry\` takes an axios instance; ${got}.`,
      );
    },
  );
});
