/**
 * The IETF Idempotency-Key draft answers `409 Conflict` to a request whose key is still being
 * processed. Sent to a retry of a keyed request, it means that the first attempt is still in
 * flight: after a backoff, the retry gets its stored outcome. A 409 to a first attempt or to an
 * unkeyed request is a real conflict, and a `422` (the key reused with another body) is never
 * repeatable.
 */
export const isInFlightConflict = (
  status: number | undefined,
  hasIdempotencyKey: boolean,
  retryCount: number,
): boolean => status === 409 && hasIdempotencyKey && retryCount > 0;
