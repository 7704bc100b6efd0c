import type { InternalAxiosRequestConfig } from 'axios';
import { AxiosError } from '../contract/axios';
import { cancellationOf } from '../runtime/cancellation';
import { MAX_TIMER_MS, setLongTimeout } from '../runtime/long-timer';

interface BoundAttempt {
  /** The caller's own signal, given back to the config when the attempt settles. */
  readonly callerSignal: InternalAxiosRequestConfig['signal'];
  readonly release: () => void;
  /** Set once the bound ended the attempt. */
  expired?: true;
}

// Keyed by the attempt's signal: axios copies a config (and so its signal) from attempt to error.
const attempts = new WeakMap<object, BoundAttempt>();

/**
 * Bounds one attempt, headers and body, to `ms`: axios's `timeout` does not (in Node it becomes an
 * idle timer once the headers arrive, which each byte of a dripping body resets). The config gets
 * a signal of our own, which aborts when `ms` pass or when the caller's `signal` aborts (a
 * `cancelToken` stays on the config, and axios heeds both). `settleAttempt` undoes it.
 */
export function boundAttempt(config: InternalAxiosRequestConfig, ms: number): void {
  const callerSignal = config.signal;
  if (typeof AbortController !== 'function' || callerSignal?.aborted) return;
  const controller = new AbortController();
  // Once aborted (by the bound or by the caller), the bound's timer has nothing left to do: a
  // call canceled while it waits (its error may not carry the config) leaves no timer behind.
  const abort = (): void => {
    clear();
    controller.abort();
  };
  const attempt: BoundAttempt = {
    callerSignal,
    release: () => {
      clear();
      stopListening?.();
    },
  };
  const clear = setLongTimeout(() => {
    attempt.expired = true;
    abort();
  }, ms);
  const stopListening = cancellationOf(config)?.subscribe(abort);
  attempts.set(controller.signal, attempt);
  config.signal = controller.signal;
}

/**
 * Once an attempt has settled: clears its bound (no timer, no listener left) and gives the
 * config back the caller's signal. Returns `true` when the bound is what ended the attempt, else `undefined`.
 */
export function settleAttempt(config: InternalAxiosRequestConfig | undefined): true | undefined {
  const signal = config?.signal as object;
  // (A WeakMap answers `undefined` for a key that is not an object.)
  const attempt = attempts.get(signal);
  if (!attempt) return;
  attempts.delete(signal);
  attempt.release();
  // (An attempt was found, so the config is there.)
  (config as InternalAxiosRequestConfig).signal = attempt.callerSignal;
  return attempt.expired;
}

/** What an attempt cut by the deadline rejects with: a timeout, as axios reports its own. */
export const deadlineError = (failure: AxiosError, deadlineMs: number | undefined): AxiosError =>
  new AxiosError(
    `deadline of ${deadlineMs}ms exceeded`,
    'ECONNABORTED',
    failure.config,
    failure.request,
    failure.response,
  );

/**
 * Lowers the attempt's axios `timeout` to the `leftMs` its deadline leaves: at least 1 ms (axios
 * reads 0 as "none"), and no more than a runtime timer holds (a longer one would fire at once;
 * the attempt's bound still holds the rest). Returns what is left in whole milliseconds, at
 * least 1, not bounded by the timer (the bound's own time).
 */
export function clampTimeout(config: InternalAxiosRequestConfig, leftMs: number): number {
  const left = Math.max(1, Math.ceil(leftMs));
  const timeout = Math.min(left, MAX_TIMER_MS);
  config.timeout = config.timeout ? Math.min(config.timeout, timeout) : timeout;
  return left;
}
