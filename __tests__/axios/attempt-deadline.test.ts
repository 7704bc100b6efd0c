import axios, {
  AxiosError,
  type AxiosResponse,
  CanceledError,
  type InternalAxiosRequestConfig,
} from 'axios';
import { attachRetry, type RetryOptions, retryInterceptor } from '../../src';
import { failureIn } from '../helpers/failure';
import { settle } from '../helpers/mock-client';

// An adapter that behaves like the http adapter with a body dripping in: it ignores `timeout`
// (each byte would reset it) and ends only when its signal aborts. `replies` answers attempts
// in turn; past them, every attempt drips.

beforeEach(() => jest.useFakeTimers({ now: 0 }));
afterEach(() => jest.useRealTimers());

type Reply = (config: InternalAxiosRequestConfig) => Promise<AxiosResponse>;

const Canceled = CanceledError as unknown as new (message: null, config: unknown) => Error;

function dripping(config: InternalAxiosRequestConfig): Promise<AxiosResponse> {
  return new Promise((_resolve, reject) => {
    config.signal?.addEventListener?.('abort', () => reject(new Canceled(null, config)));
    config.cancelToken?.promise.then(reject);
  });
}

const status =
  (code: number): Reply =>
  (config) =>
    Promise.reject(
      new AxiosError(
        `status ${code}`,
        'ERR_BAD_RESPONSE',
        config,
        {},
        {
          status: code,
          statusText: '',
          headers: {},
          config,
          data: '',
        },
      ),
    );

const ok: Reply = async (config) => ({
  status: 200,
  statusText: 'OK',
  headers: {},
  config,
  data: 'ok',
});

function client(options: RetryOptions, replies: Reply[] = []) {
  const attempts: InternalAxiosRequestConfig[] = [];
  const signals: unknown[] = [];
  const instance = axios.create({
    adapter: (config) => {
      attempts.push(config);
      signals.push(config.signal);
      return (replies[attempts.length - 1] ?? dripping)(config);
    },
  });
  attachRetry(instance, { random: () => 0.5, ...options });
  return { instance, attempts, signals };
}

describe('the deadline bounds each whole attempt, body included', () => {
  it('cuts a first attempt that outlives it, with stopReason deadline and a timeout error', async () => {
    const { instance } = client({ deadlineMs: 2000 });
    const outcome = await settle(instance.get('/drip'));
    const error = failureIn(outcome);
    expect(Date.now()).toBe(2000);
    expect(axios.isCancel(error)).toBe(false);
    expect(error.code).toBe('ECONNABORTED');
    expect(error.message).toBe('deadline of 2000ms exceeded');
    expect(error.config?.retryState?.stopReason).toBe('deadline');
    expect(error.config?.signal).toBeUndefined();
    expect(jest.getTimerCount()).toBe(0);
  });

  it('cuts a retry that outlives it', async () => {
    const { instance, attempts } = client({ deadlineMs: 1000 }, [status(503)]);
    const error = failureIn(await settle(instance.get('/drip')));
    expect(attempts).toHaveLength(2);
    expect(Date.now()).toBe(1000);
    expect(error.config?.retryState).toMatchObject({ retryCount: 1, stopReason: 'deadline' });
    expect(jest.getTimerCount()).toBe(0);
  });

  it('also bounds retries of retryInterceptor used alone', async () => {
    const instance = axios.create({
      adapter: (config) => (config.retryState ? dripping(config) : status(503)(config)),
    });
    instance.interceptors.response.use(undefined, retryInterceptor({ deadlineMs: 500 }));
    const error = failureIn(await settle(instance.get('/drip')));
    expect(error.config?.retryState?.stopReason).toBe('deadline');
    expect(Date.now()).toBeLessThanOrEqual(500);
  });

  it("reports the caller's own abort during an attempt as canceled, not deadline", async () => {
    const { instance } = client({ deadlineMs: 10_000 });
    const controller = new AbortController();
    const outcome = instance.get('/drip', { signal: controller.signal }).catch((e: unknown) => e);
    await jest.advanceTimersByTimeAsync(100);
    controller.abort();
    const error = await outcome;
    expect(axios.isCancel(error)).toBe(true);
    expect((error as AxiosError).config?.retryState?.stopReason).toBe('canceled');
    expect((error as AxiosError).config?.signal).toBe(controller.signal);
    expect(Date.now()).toBe(100);
    expect(jest.getTimerCount()).toBe(0);
  });

  it("heeds the caller's CancelToken during a bounded attempt", async () => {
    const { instance } = client({ deadlineMs: 10_000 });
    const source = axios.CancelToken.source();
    const outcome = instance.get('/drip', { cancelToken: source.token }).catch((e: unknown) => e);
    await jest.advanceTimersByTimeAsync(100);
    source.cancel('user left');
    const error = await outcome;
    expect(axios.isCancel(error)).toBe(true);
    expect(Date.now()).toBe(100);
    await jest.advanceTimersByTimeAsync(0);
  });

  it("leaves no timer once a call succeeds, and gives the config back the caller's signal", async () => {
    const controller = new AbortController();
    const { instance } = client({ deadlineMs: 60_000 }, [status(503), ok]);
    const { value } = await settle(instance.get('/items', { signal: controller.signal }));
    expect(value?.data).toBe('ok');
    expect(value?.config.signal).toBe(controller.signal);
    expect(jest.getTimerCount()).toBe(0);
    const first = client({ deadlineMs: 60_000 }, [ok]);
    const response = await first.instance.get('/items');
    expect(response.config.signal).toBeUndefined();
    expect(jest.getTimerCount()).toBe(0);
  });

  it('gives each attempt, the first and the retries, a signal of its own', async () => {
    const controller = new AbortController();
    const { instance, signals } = client({ deadlineMs: 60_000 }, [status(503), ok]);
    await settle(instance.get('/items', { signal: controller.signal }));
    expect(signals).toHaveLength(2);
    for (const signal of signals) {
      expect(signal).toBeInstanceOf(AbortSignal);
      expect(signal).not.toBe(controller.signal);
    }
  });
});
