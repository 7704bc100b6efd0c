// Compiled (not run) against the installed package: the public API and the `retry` key that
// the package's declarations add to axios's request config.
import axios, { isAxiosError } from 'axios';
import {
  attachRetry,
  type RetryOptions,
  type RetryState,
  retryInterceptor,
  type StopReason,
} from 'axios-safe-retry';

const options: RetryOptions = { retries: 2, idempotencyKey: true, retryBudget: false };
const client = axios.create();
const detach: () => void = attachRetry(client, options);
detach();
client.interceptors.response.use(undefined, retryInterceptor({ retries: 1 }));

export async function pay(): Promise<StopReason | undefined> {
  await client.get('/health', { retry: false });
  try {
    const response = await client.post('/payments', {}, { retry: { idempotencyKey: true } });
    const state: RetryState | undefined = response.config.retryState;
    return state?.stopReason;
  } catch (error) {
    if (!isAxiosError(error)) throw error;
    const retryCount: number | undefined = error.config?.retryState?.retryCount;
    console.log(retryCount);
    return error.config?.retryState?.stopReason;
  }
}
