import axios, {
  AxiosError,
  type AxiosInstance,
  type AxiosRequestConfig,
  type InternalAxiosRequestConfig,
} from 'axios';
import MockAdapter from 'axios-mock-adapter';
import type { RetryEvent, RetryOptions } from '../../src';
import { attachRetry } from '../../src';

/** An axios instance with a mock adapter and retries attached, recording every onRetry event. */
export function mockClient(options: RetryOptions = {}): {
  client: AxiosInstance;
  mock: MockAdapter;
  events: RetryEvent[];
  detach: () => void;
} {
  const client = axios.create({ baseURL: 'http://api.test' });
  const mock = new MockAdapter(client);
  const events: RetryEvent[] = [];
  const detach = attachRetry(client, {
    random: () => 0.5,
    onRetry: (event) => {
      events.push(event);
    },
    ...options,
  });
  return { client, mock, events, detach };
}

/** Runs the fake clock until the call settles; returns the response or the rejection. */
export async function settle<T>(call: Promise<T>): Promise<{ value?: T; error?: unknown }> {
  const outcome = call.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  await jest.runAllTimersAsync();
  return outcome;
}

/**
 * A mock reply that fails as real axios does with no response. (axios-mock-adapter's own
 * `networkError()` carries no code, which real axios never sends, so it is not recognised.)
 */
export function failWith(code: string) {
  return (config: AxiosRequestConfig): Promise<never> =>
    Promise.reject(
      new AxiosError(`failed with ${code}`, code, config as InternalAxiosRequestConfig, {}),
    );
}
