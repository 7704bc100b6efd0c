/** The parts of a failed attempt that decide whether it is worth repeating. */
export interface Failure {
  /** The error's code: axios's own (`ERR_NETWORK`, `ECONNABORTED`, …) or the system's (`ECONNRESET`, …). */
  readonly code?: string | undefined;
  /** The response status, when a response arrived. */
  readonly status?: number | undefined;
  /** The code of the error's cause (axios's fetch adapter keeps the system code there). */
  readonly causeCode?: string | undefined;
}

/**
 * What a failure was:
 * - `canceled`: the caller aborted it — never retried;
 * - `status`: the server answered with an error status;
 * - `transient`: a timeout or a network fault with no response — the server may or may not
 *   have acted on the request;
 * - `permanent`: anything else (a bad option, an invalid URL, a TLS certificate error, …):
 *   it fails the same way every time.
 */
export type FailureKind = 'canceled' | 'status' | 'transient' | 'permanent';

export interface Classification {
  readonly kind: FailureKind;
  /** The request provably never reached the server, so repeating it is safe for any method. */
  readonly neverSent: boolean;
}

const CANCELED = 'ERR_CANCELED';

// Faults of the connection or of time, not of the request: repeating the request may succeed.
const TRANSIENT_CODES = new Set([
  'ERR_NETWORK', // XHR and fetch adapters: the system code, if any, is on the cause
  'ECONNABORTED', // axios: timeout (or an aborted XHR)
  'ETIMEDOUT',
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EHOSTDOWN',
]);

// The connection was never made, or the host never found: the server cannot have seen the request.
const NEVER_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

export function classifyFailure(failure: Failure): Classification {
  if (failure.code === CANCELED) return { kind: 'canceled', neverSent: false };
  if (failure.status !== undefined) return { kind: 'status', neverSent: false };
  const codes = [failure.code, failure.causeCode].filter((code): code is string => !!code);
  return {
    kind: codes.some((code) => TRANSIENT_CODES.has(code)) ? 'transient' : 'permanent',
    neverSent: codes.some((code) => NEVER_SENT_CODES.has(code)),
  };
}

/** Status codes that may succeed on a repeat; every other 4xx fails the same way every time. */
export function isRepeatableStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status <= 599);
}
