/** The parts of a failed attempt that decide whether it is worth repeating. */
export interface Failure {
  /** The error's code: axios's own (`ERR_NETWORK`, `ECONNABORTED`, …) or the system's (`ECONNRESET`, …). */
  readonly code?: string | undefined;
  /** The response status, when a response arrived. */
  readonly status?: number | undefined;
  /** The code of the error's cause (axios's fetch adapter keeps the system code there). */
  readonly causeCode?: string | undefined;
  /** The error's message: axios tells a body cut part-way only by it. */
  readonly message?: string | undefined;
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

// Faults of the connection or of time, not of the request: repeating the request may succeed.
const TRANSIENT_CODES: readonly unknown[] = [
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
  'UND_ERR_SOCKET', // fetch adapter in Node (undici): the socket closed, e.g. part-way through the body
];

// The connection was never made, or the host never found: the server cannot have seen the request.
const NEVER_SENT_CODES: readonly unknown[] = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN'];

export function classifyFailure(failure: Failure): Classification {
  if (failure.code === 'ERR_CANCELED') return { kind: 'canceled', neverSent: false };
  // (Neither list has `undefined`: an absent code is in neither.)
  const codes = [failure.code, failure.causeCode] as string[];
  // A fault of the connection is transient even after the status line arrived (a body cut short):
  // axios's http adapter, when the connection dies (or its idle timeout fires) part-way through
  // the body, attaches the response, its status a success, yet the body is lost.
  const transient =
    codes.some((code) => TRANSIENT_CODES.includes(code)) ||
    (failure.code === 'ERR_BAD_RESPONSE' && failure.message === 'stream has been aborted');
  return {
    kind: transient ? 'transient' : failure.status === undefined ? 'permanent' : 'status',
    // (Never sent is a transient fault: a status or a permanent failure has none of its codes.)
    neverSent: codes.some((code) => NEVER_SENT_CODES.includes(code)),
  };
}

/** Status codes that may succeed on a repeat; every other 4xx fails the same way every time. */
export const isRepeatableStatus = (status: number): boolean =>
  status === 408 || status === 429 || (status >= 500 && status <= 599);

/** The first code along an error's `cause` chain (fetch keeps the system's code a level down). */
export function causeCodeOf(error: unknown): string | undefined {
  let cause = (error as { cause?: unknown } | null)?.cause as
    | { code?: unknown; cause?: unknown }
    | undefined;
  for (let depth = 0; cause && depth < 4; depth++) {
    if (typeof cause.code === 'string') return cause.code;
    cause = cause.cause as typeof cause;
  }
  return undefined;
}
