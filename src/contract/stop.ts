import type { AxiosError, InternalAxiosRequestConfig } from 'axios';
import { axios } from './axios';
import type { RetryState, StopReason } from './types';

/** The `code` of the error of a call that an open breaker kept from sending anything. */
export const ERR_CIRCUIT_OPEN = 'ERR_CIRCUIT_OPEN';
/** The `code` of the error of a call that pacing kept from sending anything before its deadline. */
export const ERR_RATE_LIMITED = 'ERR_RATE_LIMITED';

/** An error a call rejected with once retrying stopped: its `stopReason` says why. */
export type RetryStop = AxiosError & {
  config: InternalAxiosRequestConfig & { retryState: RetryState & { stopReason: StopReason } };
};

/** Whether `error` is the error of a call that axios-safe-retry stopped retrying. */
export function isRetryStop(error: unknown): error is RetryStop {
  return axios.isAxiosError(error) && !!error.config?.retryState?.stopReason;
}
