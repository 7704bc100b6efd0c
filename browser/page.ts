// The test page: one function, `window.send`, that sends a request through a retrying axios
// client in the real browser and reports what happened as plain data the test can check.
import axios from 'axios';
import { attachRetry, type RequestRetryOptions, type RetryState } from '../src/index';

export interface SendSpec {
  url: string;
  method: 'GET' | 'POST';
  adapter: 'xhr' | 'fetch';
  data?: unknown;
  /** Every jitter draw returns this, so delays are known in advance. */
  random: number;
  baseDelayMs?: number;
  /** Per-request options (no functions: they do not cross into the page). */
  retry?: RequestRetryOptions;
  /** Abort the call this long after the first `onRetry`, i.e. during the first backoff sleep. */
  abortAfterFirstRetryMs?: number;
}

export interface SendOutcome {
  status?: number;
  retryState?: RetryState;
  retryEvents: { retryCount: number; delayMs: number }[];
  error?: { code?: string; message: string; isCancel: boolean };
  elapsedMs: number;
}

async function send(spec: SendSpec): Promise<SendOutcome> {
  const client = axios.create({ adapter: spec.adapter });
  const controller = new AbortController();
  const retryEvents: SendOutcome['retryEvents'] = [];
  attachRetry(client, {
    random: () => spec.random,
    ...(spec.baseDelayMs === undefined ? {} : { baseDelayMs: spec.baseDelayMs }),
    onRetry: ({ retryCount, delayMs }) => {
      retryEvents.push({ retryCount, delayMs });
      if (retryCount === 1 && spec.abortAfterFirstRetryMs !== undefined) {
        setTimeout(() => controller.abort(), spec.abortAfterFirstRetryMs);
      }
    },
  });

  const started = performance.now();
  const copy = (state: RetryState | undefined) => state && JSON.parse(JSON.stringify(state));
  try {
    const response = await client.request({
      url: spec.url,
      method: spec.method,
      data: spec.data,
      signal: controller.signal,
      ...(spec.retry ? { retry: spec.retry } : {}),
    });
    return {
      status: response.status,
      retryState: copy(response.config.retryState),
      retryEvents,
      elapsedMs: performance.now() - started,
    };
  } catch (error) {
    if (!axios.isAxiosError(error) && !axios.isCancel(error)) throw error;
    return {
      status: error.response?.status,
      retryState: copy(error.config?.retryState),
      retryEvents,
      error: {
        ...(error.code === undefined ? {} : { code: error.code }),
        message: error.message,
        isCancel: axios.isCancel(error),
      },
      elapsedMs: performance.now() - started,
    };
  }
}

(window as unknown as { send: typeof send }).send = send;
