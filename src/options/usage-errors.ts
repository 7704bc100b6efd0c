// Misuses of the API that would otherwise fail silently or far from their cause: each becomes a
// TypeError that says what was expected and how to write it.
import type { AxiosInstance } from 'axios';
import { shown, optionError as usageError } from './rules';

/**
 * The error for a value the response-error handler should never receive, or `undefined` for an
 * error (of this realm or another). axios rejects only with errors: anything else came through
 * axios's success slot, `use(retryInterceptor())`, where the handler sees no failure.
 */
export function notAnErrorProblem(value: unknown): TypeError | undefined {
  if (value instanceof Error || {}.toString.call(value) === '[object Error]') {
    return undefined;
  }
  const status = (value as { status?: unknown } | null)?.status;
  return Object.defineProperty(
    usageError(
      `\`retryInterceptor()\` got ${typeof status === 'number' ? `a ${status} response` : shown(value)}, not an error: \`use(undefined, retryInterceptor())\` or \`attachRetry(instance)\``,
    ),
    'cause',
    { value, writable: true },
  );
}

/** Shared by every copy of the package (its CJS and ESM builds): a symbol of the registry. */
const ATTACHED = Symbol.for('axios-safe-retry.attached');

/** Marks the response-error handler `attachRetry` registers, so a second one can be detected. */
export function markAttached(handler: object): void {
  Object.defineProperty(handler, ATTACHED, { value: true });
}

/**
 * Checks the first argument of `attachRetry`: an axios instance (or the default `axios`) that
 * does not carry retries already. Throws a TypeError that says what to do otherwise.
 */
export function assertAttachable(instance: unknown): asserts instance is AxiosInstance {
  const response = (instance as AxiosInstance | undefined)?.interceptors?.response as
    | { forEach?(visit: (handler: { rejected?: Record<symbol, unknown> }) => void): void }
    | undefined;
  if (!response) {
    throw usageError(`\`attachRetry\` takes an axios instance; got ${shown(instance)}`);
  }
  response.forEach?.((handler) => {
    if (handler.rejected?.[ATTACHED]) {
      throw usageError('already attached: detach first');
    }
  });
}
