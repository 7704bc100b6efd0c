import {
  type AxiosError,
  type AxiosInstance,
  type InternalAxiosRequestConfig,
  isAxiosError,
} from 'axios';

interface NaiveRetryConfig extends InternalAxiosRequestConfig {
  naiveRetryCount?: number;
}

/** A failure worth retrying: no response (network), 429 or 5xx. */
function isRetryable(error: AxiosError): boolean {
  const status = error.response?.status;
  return status === undefined || status === 429 || status >= 500;
}

/**
 * The retry loop people write by hand: wait `delayMs(retryNumber)` and re-issue through the
 * instance, up to `retries` times. No jitter, no Retry-After, no budget. Two baselines use it.
 */
export function attachNaiveRetry(
  instance: AxiosInstance,
  retries: number,
  delayMs: (retryNumber: number) => number,
): void {
  instance.interceptors.response.use(undefined, async (error: unknown) => {
    if (!isAxiosError(error) || !error.config || !isRetryable(error)) throw error;
    const config = error.config as NaiveRetryConfig;
    const retryNumber = (config.naiveRetryCount ?? 0) + 1;
    if (retryNumber > retries) throw error;
    config.naiveRetryCount = retryNumber;
    await new Promise((resolve) => setTimeout(resolve, delayMs(retryNumber)));
    return instance.request(config);
  });
}
