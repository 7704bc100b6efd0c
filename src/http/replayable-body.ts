/**
 * Whether a request body can be sent again. A stream or an async iterable is consumed by the
 * first attempt: a retry would send an empty or truncated body. Duck-typed, so no Node-only
 * module is needed and browsers are covered too.
 */
export function isReplayableBody(data: unknown): boolean {
  if (data === null || typeof data !== 'object') return true;
  if (typeof (data as { pipe?: unknown }).pipe === 'function') return false; // Node stream, form-data
  if (Symbol.asyncIterator in data) return false;
  if (typeof ReadableStream !== 'undefined' && data instanceof ReadableStream) return false;
  return true;
}
