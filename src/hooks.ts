import type { AxiosError } from 'axios';
import { setLongTimeout } from './long-timer';
import { MS, type ResolvedOptions, ruled } from './options';
import { isThenable } from './sleep';
import type { RetryState } from './types';

const verdict = (value: unknown) =>
  ruled(
    'shouldRetry()',
    [(v) => v === undefined || typeof v === 'boolean', 'true, false or undefined'],
    value as boolean | undefined,
  );

/**
 * The answer of the caller's `shouldRetry` (`undefined` without one): at once, or a promise of it,
 * awaited within the call's deadline (`undefined` once the deadline passes: the call then stops
 * with `deadline`). A throw or a rejection is passed on.
 */
export function askShouldRetry(
  options: ResolvedOptions,
  error: AxiosError,
  state: RetryState,
): boolean | undefined | Promise<boolean | undefined> {
  const answer = options.shouldRetry?.(error, state);
  let clear = (): void => {};
  return isThenable(answer)
    ? new Promise((resolve, reject) => {
        clear = setLongTimeout(
          resolve as () => void,
          state.startedAt + (options.deadlineMs ?? Infinity) - Date.now(),
        );
        answer.then(resolve, reject);
      })
        .finally(clear)
        .then(verdict)
    : verdict(answer);
}

/** The caller's `retryDelay` for this retry, its answer checked, if it has one. */
export function retryDelayOf(
  options: ResolvedOptions,
  error: AxiosError,
  retryCount: number,
): ((delayMs: number) => number) | undefined {
  const { retryDelay } = options;
  return (
    retryDelay &&
    ((delayMs) => ruled('retryDelay()', MS, retryDelay({ retryCount, error, delayMs })))
  );
}
