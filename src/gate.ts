import axios, {
  type AxiosAdapter,
  AxiosError,
  type AxiosResponse,
  type InternalAxiosRequestConfig,
} from 'axios';
import { clampTimeout } from './attempt-deadline';
import { cancellationError, cancellationOf } from './cancellation';
import { classifyFailure } from './classify';
import type { Ending, LoadControl, Pass } from './load-control';
import { setLongTimeout } from './long-timer';
import type { ResolvedOptions } from './options';
import { originOf } from './origin';
import { type RateLimit, readRateLimit, throttleStatus } from './rate-limit-headers';
import { retryAfterMs } from './retry-after';
import { ERR_CIRCUIT_OPEN, ERR_RATE_LIMITED } from './stop';
import type { StopReason } from './types';

/**
 * The axios side of load control: each attempt goes through an adapter that first passes the
 * origin's gate (breaker, pacer), waiting within the call's deadline, then tells the gate how
 * the attempt ended. Wrapping the adapter sees every attempt's raw outcome, before any
 * interceptor reshapes it, and waits after the request interceptors (a refreshed token) ran.
 */

const ORIGINAL = Symbol('axios-safe-retry: adapter');
const STOP = Symbol('axios-safe-retry: stop reason');

type Gated = AxiosAdapter & { [ORIGINAL]: unknown };
type GateError = AxiosError & { [STOP]?: StopReason };

type GetAdapter = (adapter: unknown, config?: unknown) => AxiosAdapter;
// Exported by axios since 1.5.1; before it, only a function adapter can be wrapped.
const getAdapter = (axios as unknown as { getAdapter?: GetAdapter }).getAdapter;

/** Why the gate stopped a call (`'circuit-open'` or `'deadline'`), if this error is the gate's. */
export function gateStopOf(error: unknown): StopReason | undefined {
  return (error as GateError)[STOP];
}

/** The adapter an attempt's config holds, unwrapped. */
export function adapterOf(config: InternalAxiosRequestConfig): unknown {
  const adapter = config.adapter as Partial<Gated> | undefined;
  return adapter?.[ORIGINAL] ?? adapter;
}

function gateError(
  config: InternalAxiosRequestConfig,
  code: string,
  message: string,
  stop: StopReason,
): GateError {
  const error: GateError = new AxiosError(`axios-safe-retry: ${message}`, code, config);
  error[STOP] = stop;
  return error;
}

/** What a response says of its origin's limits, its headers read in any case. */
export interface ResponseSignals {
  /** The status, GitHub's rate-limit `403` read as the `429` it is. */
  readonly status: number;
  /** `Retry-After`, else `X-RateLimit-Retry-After`. */
  readonly retryAfter: string | undefined;
  readonly rateLimit: RateLimit | undefined;
  /** The server's wait: `Retry-After`, else the rate limit's reset. */
  readonly waitMs: number | undefined;
}

export function signalsOf(response: AxiosResponse, now: number): ResponseSignals {
  const headers: Record<string, string> = {};
  const given = (response.headers ?? {}) as Record<string, unknown>;
  for (const name of Object.keys(given)) {
    const value = given[name];
    if (value !== undefined && value !== null && value !== false) {
      headers[name.toLowerCase()] = String(value);
    }
  }
  const rateLimit = readRateLimit((name) => headers[name], now);
  const retryAfter = headers['retry-after'] ?? headers['x-ratelimit-retry-after'];
  return {
    status: throttleStatus(response.status, rateLimit, retryAfter),
    retryAfter,
    rateLimit,
    waitMs:
      (retryAfter === undefined ? undefined : retryAfterMs(retryAfter, headers.date, now)) ??
      rateLimit?.resetMs,
  };
}

const SUCCESS: Ending = Object.freeze({ failed: false });
const RATE_LIMIT_HEADER = /ratelimit/i;

/** How an attempt ended, for the gate: a failure is what the call would retry for. */
function endingOf(
  response: AxiosResponse | undefined,
  error: AxiosError | undefined,
  statusCodes: readonly number[],
): Ending {
  if (!response) {
    const { kind } = classifyFailure({
      code: error?.code,
      causeCode: (error?.cause as { code?: string } | undefined)?.code,
    });
    return { failed: kind === 'transient' ? true : undefined };
  }
  // The success path: a plain success that says nothing of rate limits needs no more reading.
  if (
    response.status < 400 &&
    !Object.keys(response.headers ?? {}).some((name) => RATE_LIMIT_HEADER.test(name))
  ) {
    return SUCCESS;
  }
  const signals = signalsOf(response, Date.now());
  return { ...signals, failed: statusCodes.includes(signals.status) };
}

/** Tells the gate of a failed attempt that did not pass it (`retryInterceptor` alone). */
export function observeFailure(
  control: LoadControl,
  failure: AxiosError & { config: InternalAxiosRequestConfig },
  statusCodes: readonly number[],
): void {
  const { config } = failure;
  control.observe(
    originOf(config.baseURL, config.url),
    Date.now(),
    endingOf(failure.response, failure, statusCodes),
  );
}

/** Waits until `until`, or until the origin's breaker changes; rejects if the call is aborted. */
function waitFor(
  until: number,
  config: InternalAxiosRequestConfig,
  subscribe?: (wake: () => void) => () => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let unsubscribeWake = (): void => {};
    let unsubscribeCancel = (): void => {};
    let clearTimer = (): void => {};
    const finish = (error?: unknown): void => {
      clearTimer();
      unsubscribeWake();
      unsubscribeCancel();
      if (error) reject(error);
      else resolve();
    };
    // A hold may be long (a quota that resets in days): past 2³¹−1 ms, timers are chained.
    if (until < Infinity) clearTimer = setLongTimeout(finish, Math.ceil(until - Date.now()));
    if (subscribe) unsubscribeWake = subscribe(() => finish());
    const cancellation = cancellationOf(config);
    if (cancellation) {
      unsubscribeCancel = cancellation.subscribe(() => finish(cancellationError(config)));
    }
  });
}

/**
 * The pass once the gate lets the attempt go: at once if nothing holds it (no promise hop on
 * the success path), else a promise; rejects with the gate's error.
 */
function pass(
  control: LoadControl,
  origin: string,
  config: InternalAxiosRequestConfig,
  deadline: number | undefined,
  now: number,
): Pass | Promise<Pass> {
  const verdict = control.admit(origin, now, deadline ?? Infinity);
  if (verdict.pass && verdict.at <= now) return verdict.pass;
  const startedAt = config.retryState?.startedAt ?? now;
  return (async () => {
    for (let v = verdict; ; v = control.admit(origin, Date.now(), deadline ?? Infinity)) {
      if (v.pass) {
        try {
          // Until the slot, or until the origin is no longer paced (the slot is then not needed).
          await waitFor(v.at, config, (wake) => control.onChange(origin, startedAt, wake, true));
        } catch (error) {
          control.settle(v.pass, Date.now(), { failed: undefined });
          throw error;
        }
        if (control.mayStillGo(v.pass)) return v.pass;
        // The breaker opened while the attempt waited for its slot: back to the gate.
        control.settle(v.pass, Date.now(), { failed: undefined });
        continue;
      }
      if ('late' in v) {
        throw gateError(
          config,
          ERR_RATE_LIMITED,
          `${origin} is paced past the deadline`,
          'deadline',
        );
      }
      // A break that ends past the deadline cannot let the call through in time; a probe in
      // flight (`Infinity`) may close the breaker at any moment, until the deadline.
      const late =
        deadline !== undefined &&
        (Date.now() >= deadline || (v.until < Infinity && v.until >= deadline));
      if (deadline === undefined || late) {
        throw gateError(
          config,
          ERR_CIRCUIT_OPEN,
          `the circuit of ${origin} is open`,
          deadline === undefined ? 'circuit-open' : 'deadline',
        );
      }
      await waitFor(Math.min(v.until, deadline), config, (wake) =>
        control.onChange(origin, startedAt, wake),
      );
    }
  })();
}

/**
 * An adapter that sends through `adapter` (a function, or names for axios's `getAdapter`) once the
 * gate lets the attempt go; `undefined` when this axios cannot resolve `adapter`.
 */
export function gatedAdapter(
  adapter: unknown,
  control: LoadControl,
  options: ResolvedOptions | false,
  statusCodes: readonly number[],
): AxiosAdapter | undefined {
  if (typeof adapter !== 'function' && !getAdapter) return undefined;
  const deadlineMs = options ? options.deadlineMs : undefined;
  const gated = (config: InternalAxiosRequestConfig): Promise<AxiosResponse> => {
    const send =
      typeof adapter === 'function'
        ? (adapter as AxiosAdapter)
        : (getAdapter as GetAdapter)(adapter, config);
    const sendThrough = (passed: Pass): Promise<AxiosResponse> => {
      // Observed on a branch of its own: the outcome reaches axios with no promise hop added.
      let sent: Promise<AxiosResponse>;
      try {
        sent = send(config);
      } catch (error) {
        control.settle(passed, Date.now(), endingOf(undefined, error as AxiosError, statusCodes));
        throw error;
      }
      sent.then(
        (response) =>
          control.settle(passed, Date.now(), endingOf(response, undefined, statusCodes)),
        (error: AxiosError) =>
          control.settle(passed, Date.now(), endingOf(error?.response, error, statusCodes)),
      );
      return sent;
    };
    const state = config.retryState;
    const deadline = deadlineMs === undefined || !state ? undefined : state.startedAt + deadlineMs;
    const origin = originOf(config.baseURL, config.url);
    const waitingSince = Date.now();
    const passed = pass(control, origin, config, deadline, waitingSince);
    if (!(passed instanceof Promise)) return sendThrough(passed);
    return passed.then((held) => {
      const waited = Date.now() - waitingSince;
      if (waited > 0 && state) {
        config.retryState = { ...state, waitedMs: (state.waitedMs ?? 0) + waited };
        // The attempt's timeout was clamped to the deadline before the wait: clamp it again.
        if (deadline !== undefined) clampTimeout(config, deadline - Date.now());
      }
      return sendThrough(held);
    });
  };
  return Object.assign(gated, { [ORIGINAL]: adapter });
}
