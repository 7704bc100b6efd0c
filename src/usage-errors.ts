// Misuses of the API that would otherwise fail silently or far from their cause: each becomes a
// TypeError that says what was expected and how to write it.
import type { AxiosInstance } from 'axios';

function usageError(message: string, cause?: unknown): TypeError {
  const error = new TypeError(`axios-safe-retry: ${message}`);
  if (cause !== undefined) Object.defineProperty(error, 'cause', { value: cause, writable: true });
  return error;
}

const WORKING_FORMS =
  'Register it as the error handler, `instance.interceptors.response.use(undefined, ' +
  'retryInterceptor(…))`, or use `attachRetry(instance, …)`, which also covers first attempts.';

/** An `Error` of this realm or another (an iframe, a vm context), or an axios error. */
function isErrorLike(value: unknown): boolean {
  return (
    value instanceof Error ||
    Object.prototype.toString.call(value) === '[object Error]' ||
    (value as { isAxiosError?: unknown } | null)?.isAxiosError === true
  );
}

/**
 * The error for a value the response-error handler should never receive, or `undefined` for an
 * error. axios rejects only with errors: anything else reached the handler through axios's
 * success slot, `use(retryInterceptor())`, where it sees every response and no failure.
 */
export function notAnErrorProblem(value: unknown): TypeError | undefined {
  if (isErrorLike(value)) return undefined;
  const response = value as { status?: unknown; config?: unknown } | null;
  const got =
    typeof response?.status === 'number' && typeof response.config === 'object'
      ? `a response (status ${response.status})`
      : `a value that is not an error (${value === null ? 'null' : typeof value})`;
  return usageError(
    `the retry interceptor received ${got}: it was registered in axios's success slot, ` +
      `\`interceptors.response.use(retryInterceptor(…))\`, where it never sees a failure. ` +
      WORKING_FORMS,
    value,
  );
}

interface InspectableResponseInterceptors {
  forEach?(visit: (handler: { rejected?: unknown } | null) => void): void;
}

/** Shared by every copy of the package (its CJS and ESM builds), as a symbol of the registry. */
const ATTACHED = Symbol.for('axios-safe-retry.attachRetry');

/** Marks the response-error handler `attachRetry` registers, so a second one can be detected. */
export function markAttached<T extends object>(handler: T): T {
  Object.defineProperty(handler, ATTACHED, { value: true });
  return handler;
}

/**
 * Checks the first argument of `attachRetry`: an axios instance (or the default `axios`) that
 * does not carry retries already. Throws a TypeError that says what to do otherwise.
 */
export function assertAttachable(instance: unknown): asserts instance is AxiosInstance {
  const interceptors = (instance as Partial<AxiosInstance> | null | undefined)?.interceptors;
  if (
    typeof interceptors?.request?.use !== 'function' ||
    typeof interceptors.response?.use !== 'function'
  ) {
    const got =
      instance === null || (typeof instance !== 'object' && typeof instance !== 'function')
        ? String(instance)
        : 'an object without `interceptors`';
    throw usageError(
      `\`attachRetry(instance, options)\` expects an axios instance (from \`axios.create()\`) or ` +
        `the default \`axios\` as its first argument; got ${got}.`,
    );
  }
  let attached = false;
  (interceptors.response as InspectableResponseInterceptors).forEach?.((handler) => {
    if ((handler?.rejected as Record<symbol, unknown> | undefined)?.[ATTACHED]) attached = true;
  });
  if (attached) {
    throw usageError(
      'retries are already attached to this axios instance. To change its options, call the ' +
        'detach function the first `attachRetry` returned, then attach again.',
    );
  }
}
