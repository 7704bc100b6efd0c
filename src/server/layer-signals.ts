// What a server layer reads off an inbound request, and what it tells of an outgoing call that
// failed. Pure: no axios, no node:http (axios-safe-retry/server is built on it).

const GRPC_UNITS_MS: Readonly<Record<string, number>> = {
  H: 3_600_000,
  M: 60_000,
  S: 1000,
  m: 1,
  u: 0.001,
  n: 0.000_001,
};

/**
 * The inbound deadline, in milliseconds: our `Request-Deadline-Ms` (whole milliseconds), else
 * gRPC's `grpc-timeout` (up to 8 digits and a unit). A malformed value (a sign, a fraction, an
 * exponent, two values, text) is ignored (`undefined`), as if the header were absent; a longer one
 * than `maxMs` is cut to `maxMs`. `0` (or a `grpc-timeout` below 1 ms) is a deadline already
 * spent: it is kept, and no call starts an attempt under it.
 */
export function inboundDeadlineMs(
  deadlineHeader: string | undefined,
  grpcTimeout: string | undefined,
  maxMs: number,
): number | undefined {
  let ms: number | undefined;
  if (deadlineHeader !== undefined) {
    // Any run of digits: one too long for a number is Infinity, cut to `maxMs` below.
    if (/^\d+$/.test(deadlineHeader.trim())) ms = Number(deadlineHeader);
  } else if (grpcTimeout !== undefined) {
    const match = /^(\d{1,8})([HMSmun])$/.exec(grpcTimeout.trim());
    if (match) ms = Number(match[1]) * (GRPC_UNITS_MS[match[2] as string] as number);
  }
  return ms === undefined ? undefined : Math.min(ms, maxMs);
}

/** The inbound attempt number (`Retry-Attempt`, from 1), if it carried a valid one. */
export function inboundAttempt(value: string | undefined): number | undefined {
  const text = value?.trim();
  return text && /^[1-9]\d{0,5}$/.test(text) ? Number(text) : undefined;
}

/** The parts of an outgoing call's error that say whether the layer below gave up on overload. */
interface CallError {
  readonly code?: unknown;
  readonly response?: { readonly status?: unknown } | undefined;
  readonly config?:
    | {
        readonly retryState?: {
          readonly stopReason?: unknown;
          readonly retryCount?: unknown;
          readonly retryAfterMs?: unknown;
        };
      }
    | undefined;
  readonly cause?: unknown;
}

/**
 * Whether an outgoing call stopped because what it calls is overloaded, or because it already
 * retried it, so that retrying this layer from above would only add load: it stopped on the
 * budget, or at the gate (an open breaker, no slot in time: `ERR_RATE_LIMITED` /
 * `ERR_CIRCUIT_OPEN`, or a retry held back there, `retryAfterMs` set, whatever its reason), a
 * layer below that gave up itself (`upstream-gave-up` on a 429 or 5xx), or used up its retries or
 * its deadline: after one retry at least, whatever failed (the 502 of a dependency, a reset, a
 * refused connection), and even with none on 503 or 429 (a wait asked past the deadline). With
 * `deadlineSpent`, any other call stopped by its deadline, or canceled (a
 * layer cancels a call that the inbound deadline leaves no time for), counts too: the inbound
 * deadline is all but gone, so the caller has no time to retry. Follows `cause` (an error
 * wrapped by the handler) a few levels down.
 */
export function gaveUpOnOverload(error: unknown, deadlineSpent = false): boolean {
  let candidate = error as CallError | null | undefined;
  // (A primitive, or a function, has none of the fields read: its `cause` ends the walk.)
  for (let depth = 0; candidate && depth < 5; depth++) {
    const state = candidate.config?.retryState;
    const reason = state?.stopReason;
    const status = Number(candidate.response?.status);
    const code = candidate.code;
    // The gate stopped it (an open breaker, no slot in time): its `retryAfterMs` is set, on a
    // retry's stop too, which ends with the error of the attempt before (a 503, a refusal).
    if (code === 'ERR_RATE_LIMITED' || code === 'ERR_CIRCUIT_OPEN' || state?.retryAfterMs != null)
      return true;
    if (reason === 'budget-exhausted') return true;
    if (reason === 'upstream-gave-up') return status === 429 || status >= 500;
    // Used up its retries, or its deadline (a 503's `Retry-After` ends past it): retried here, a
    // failure retried from above too would be multiplied; a 429 or 503 is overload even if it
    // was not.
    const late = reason === 'deadline';
    if (
      (late || reason === 'retries-exhausted') &&
      ((state?.retryCount as number) > 0 || status === 429 || status === 503)
    ) {
      return true;
    }
    if (late || reason === 'canceled') return deadlineSpent;
    if (reason) return false;
    candidate = candidate.cause as CallError | undefined;
  }
  return false;
}
