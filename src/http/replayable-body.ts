/**
 * Whether a request body can be sent again. A stream or an async iterable is consumed by the
 * first attempt: a retry would send an empty or truncated body. Duck-typed, so no Node-only
 * module is needed and browsers are covered too.
 */
export const isReplayableBody = (data: unknown): boolean =>
  data === null ||
  typeof data !== 'object' ||
  !(
    typeof (data as { pipe?: unknown }).pipe === 'function' || // Node stream, form-data
    Symbol.asyncIterator in data ||
    (typeof ReadableStream !== 'undefined' && data instanceof ReadableStream)
  );
