import type { AxiosError } from 'axios';
import type { RetryState } from '../contract/types';
import { FINITE, type ResolvedOptions } from '../options/options';
import { ruled } from '../options/rules';
import { now } from '../runtime/clock';
import { setLongTimeout } from '../runtime/long-timer';

/**
 * The answer of the caller's `shouldRetry`, if it has one: a promise, awaited within the call's
 * deadline (`undefined` once the deadline passes: the call then stops with `deadline`), that
 * rejects with what `shouldRetry` throws or rejects with, or with a TypeError for an answer that
 * is not a boolean or undefined.
 */
export function askShouldRetry(
  options: ResolvedOptions,
  error: AxiosError,
  state: RetryState,
): Promise<boolean | undefined> | undefined {
  const shouldRetry = options.shouldRetry;
  let clear!: () => void;
  return (
    shouldRetry &&
    new Promise((resolve, reject) => {
      clear = setLongTimeout(
        resolve as () => void,
        state.startedAt + (options.deadlineMs ?? Infinity) - now(),
      );
      Promise.resolve(shouldRetry(error, state)).then(resolve, reject);
    })
      .finally(clear)
      .then((verdict) =>
        ruled(
          'shouldRetry()',
          [(v) => v === undefined || v === !!v, 'a boolean or undefined'],
          verdict as boolean | undefined,
        ),
      )
  );
}

/** The caller's `retryDelay` for this retry, its answer checked, if it has one. */
export const retryDelayOf = (
  { retryDelay }: ResolvedOptions,
  error: AxiosError,
  retryCount: number,
): ((delayMs: number) => number) | undefined =>
  retryDelay &&
  ((delayMs) => ruled('retryDelay()', FINITE, retryDelay({ retryCount, error, delayMs })));
