import type { AxiosError, AxiosResponse } from 'axios';
import type { RetryEvent } from '../src';
import { cyan, green, ms, red, yellow } from './log';

/** Why an attempt failed, as the log shows it: `503`, `429 Retry-After: 1`, `ECONNREFUSED`. */
export function describeFailure(error: AxiosError): string {
  const response = error.response;
  if (!response) return error.code ?? error.message;
  const retryAfter = response.headers['retry-after'];
  return retryAfter === undefined
    ? String(response.status)
    : `${response.status} Retry-After: ${retryAfter}`;
}

/** One `onRetry` event as a log line: the attempt that failed, why, and the delay chosen before the next one. */
export function describeRetry(event: RetryEvent): string {
  const key = event.config.retryState?.idempotencyKey;
  return (
    `attempt ${event.retryCount} → ${yellow(describeFailure(event.error))} · ` +
    `retry ${event.retryCount} in ${ms(event.delayMs)}` +
    (key === undefined ? '' : ` · ${cyan(`Idempotency-Key ${key}`)}`)
  );
}

/** The line logged when a call finally fails: why, and the stop reason on its retry state. */
export function describeFinalFailure(error: AxiosError): string {
  return `        ${red(`failed: ${describeFailure(error)}`)} (stopReason ${error.config?.retryState?.stopReason})`;
}

/** The line logged when a call succeeds: the attempt that did, and its status. */
export function describeSuccess(response: AxiosResponse): string {
  const attempt = (response.config.retryState?.retryCount ?? 0) + 1;
  return `        attempt ${attempt} → ${green(String(response.status))}`;
}
