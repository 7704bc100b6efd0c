import axios, { AxiosError, type AxiosResponse, type InternalAxiosRequestConfig } from 'axios';
import MockAdapter from 'axios-mock-adapter';
import { attachRetry, retryInterceptor } from '../../src';
import { failureIn } from '../helpers/failure';
import { useFakeClock } from '../helpers/fake-clock';
import { mockClient, settle } from '../helpers/mock-client';

// attachRetry, and the response-error interceptor used alone (retryInterceptor).

useFakeClock();

describe('attachRetry', () => {
  it('returns a function that removes both interceptors', async () => {
    const { client, mock, detach } = mockClient();
    detach();
    mock.onGet('/items').reply(503);
    const error = failureIn(await settle(client.get('/items')));
    expect(error.config?.retryState).toBeUndefined();
    expect(mock.history.get).toHaveLength(1);
  });

  it('works on the global axios; an instance axios.create() makes afterwards has none of it', async () => {
    // axios copies its defaults into a new instance, not its interceptors (README, Quick start).
    const mock = new MockAdapter(axios);
    const detach = attachRetry(axios, { random: () => 0.5 });
    try {
      mock.onGet('http://api.test/items').replyOnce(503).onGet('http://api.test/items').reply(200);
      const { value } = await settle(axios.get('http://api.test/items'));
      expect((value as AxiosResponse).config.retryState?.retryCount).toBe(1);
      mock.onGet('http://api.test/later').replyOnce(503).onGet('http://api.test/later').reply(200);
      const later = axios.create();
      const error = failureIn(await settle(later.get('http://api.test/later')));
      expect(error.response?.status).toBe(503);
      expect(error.config?.retryState).toBeUndefined();
    } finally {
      detach();
      mock.restore();
    }
  });

  it('fails at once on bad options, naming the option', () => {
    expect(() => attachRetry(axios.create(), { retries: -1 })).toThrow(
      /`retries` must be an integer in \[0, ∞\]/,
    );
    expect(() => retryInterceptor({ retryBudget: { ratio: 2 } })).toThrow(
      /`retryBudget.ratio` must be a number in \[0, 1\]/,
    );
  });
});

describe('retryInterceptor used alone', () => {
  // axios-mock-adapter removes `adapter` from the config it handles, so a retry sent from the
  // config alone would miss it: these tests give the instance an adapter of their own instead.
  function bareClient(options = {}, replies: number[] = [503, 200]) {
    const sent: InternalAxiosRequestConfig[] = [];
    const adapter = async (config: InternalAxiosRequestConfig): Promise<AxiosResponse> => {
      sent.push(config);
      const status = replies[Math.min(sent.length, replies.length) - 1]!;
      const response = { status, statusText: '', headers: {}, config, data: '' };
      if (status < 400) return response;
      throw new AxiosError(`status ${status}`, 'ERR_BAD_RESPONSE', config, {}, response);
    };
    const client = axios.create({ baseURL: 'http://api.test', adapter });
    client.interceptors.response.use(
      undefined,
      retryInterceptor({ random: () => 0.5, ...options }),
    );
    return { client, sent };
  }

  it('retries a GET and counts the state from the first failure', async () => {
    const { client, sent } = bareClient();
    jest.advanceTimersByTime(500);
    const { value } = await settle(client.get('/items'));
    expect((value as AxiosResponse).config.retryState).toMatchObject({
      retryCount: 1,
      startedAt: 500,
      delays: [50],
    });
    expect(sent).toHaveLength(2);
  });

  it('cannot stamp a key on the first attempt, so a POST is retried only with a key of its own', async () => {
    const unkeyed = bareClient({ idempotencyKey: true });
    const error = failureIn(await settle(unkeyed.client.post('/charges', {})));
    expect(error.config?.retryState?.stopReason).toBe('not-retryable');
    expect(unkeyed.sent).toHaveLength(1);

    const keyed = bareClient({ idempotencyKey: true });
    const { value } = await settle(
      keyed.client.post('/charges', {}, { headers: { 'Idempotency-Key': 'k1' } }),
    );
    expect(value?.status).toBe(200);
    expect(value?.config.retryState?.idempotencyKey).toBe('k1');
    expect(keyed.sent.map((c) => c.headers['Idempotency-Key'])).toEqual(['k1', 'k1']);
  });
});

describe('retryInterceptor alone, with a key header of its own name', () => {
  it("retries a write that carries the caller's key under that name", async () => {
    const sent: InternalAxiosRequestConfig[] = [];
    const client = axios.create({
      adapter: async (config) => {
        sent.push(config);
        const response = {
          status: sent.length === 1 ? 503 : 200,
          statusText: '',
          headers: {},
          config,
          data: '',
        };
        if (sent.length > 1) return response;
        throw new AxiosError('status 503', 'ERR_BAD_RESPONSE', config, {}, response);
      },
    });
    client.interceptors.response.use(
      undefined,
      retryInterceptor({ random: () => 0, idempotencyKey: { header: 'X-Request-Key' } }),
    );
    const { value } = await settle(
      client.post('/charges', {}, { headers: { 'x-request-key': 'k9' } }),
    );
    expect(value?.status).toBe(200);
    expect(sent).toHaveLength(2);
  });
});
