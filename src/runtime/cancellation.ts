import type { InternalAxiosRequestConfig } from 'axios';
import { CanceledError } from '../contract/axios';
import type { Interruption } from './sleep';

interface AbortSignalLike {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

interface CancelTokenLike {
  readonly reason?: unknown;
  subscribe?(listener: () => void): void;
  unsubscribe?(listener: () => void): void;
}

/** Fires when the request's `signal` aborts or its `cancelToken` cancels (at once if already so). */
export function cancellationOf(config: InternalAxiosRequestConfig): Interruption | undefined {
  const signal = config.signal as AbortSignalLike | undefined;
  const token = config.cancelToken as CancelTokenLike | undefined;
  if (!signal && !token?.subscribe) return undefined;
  return {
    subscribe(onCancel) {
      if (signal?.aborted || token?.reason) {
        onCancel();
        return () => {};
      }
      signal?.addEventListener('abort', onCancel);
      token?.subscribe?.(onCancel);
      return () => {
        signal?.removeEventListener('abort', onCancel);
        token?.unsubscribe?.(onCancel);
      };
    },
  };
}

/** The error axios itself rejects a canceled request with: the token's reason, or a CanceledError. */
export const cancellationError = (config: InternalAxiosRequestConfig): unknown =>
  (config.cancelToken as CancelTokenLike | undefined)?.reason ||
  // axios's typings give CanceledError AxiosError's parameters; its constructor is (message, config, request).
  new (CanceledError as unknown as new (message: null, config: unknown) => Error)(null, config);
