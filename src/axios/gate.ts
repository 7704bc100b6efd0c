import type { AxiosAdapter, AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import { AxiosError, axios } from '../contract/axios';
import { ERR_CIRCUIT_OPEN, ERR_RATE_LIMITED } from '../contract/stop';
import type { StopReason } from '../contract/types';
import { causeCodeOf, classifyFailure } from '../http/classify';
import { isPlainSuccess, signalsOf } from '../http/response-signals';
import { type Where, whereOf } from '../http/route';
import type { Ending, LoadControl, Pass, Scope, Verdict } from '../load-control/load-control';
import type { CallSettings } from '../options/call-settings';
import { backoffCeiling } from '../retry/backoff';
import { cancellationError, cancellationOf } from '../runtime/cancellation';
import { now } from '../runtime/clock';
import { sleep } from '../runtime/sleep';
import { clampTimeout } from './attempt-deadline';

/**
 * The axios side of load control: each attempt goes through an adapter that first passes the
 * gate of its origin and route (breaker, pacer), waiting no longer than its bound, then tells
 * the gate how the attempt ended. Wrapping the adapter sees every attempt's raw outcome, before
 * any interceptor reshapes it, and waits after the request interceptors (a refreshed token) ran.
 */

const ORIGINAL = Symbol('adapter');
const STOP = Symbol('stop');

/** Why the gate stopped a call, and when its scope is expected to accept again. */
export interface GateStop {
  readonly stopReason: StopReason;
  readonly retryAfterMs: number;
}

type Gated = AxiosAdapter & { [ORIGINAL]: unknown };
type GateError = AxiosError & { [STOP]?: GateStop };

type GetAdapter = (adapter: unknown, config?: unknown) => AxiosAdapter;
// Exported by axios since 1.5.1; before it, only a function adapter can be wrapped.
const getAdapter = (axios as unknown as { getAdapter?: GetAdapter }).getAdapter;

// The least time an attempt needs to be worth sending (or the origin's usual latency, if more):
// a slot with less of the deadline left would send a request the caller cannot wait for.
const MIN_USEFUL_MS = 50;

/** Why the gate stopped a call, if this error is the gate's. */
export function gateStopOf(error: unknown): GateStop | undefined {
  return (error as GateError)[STOP];
}

// Faults of one request rather than of the connection: they are its route's, not the origin's.
const ROUTE_FAULTS: readonly unknown[] = ['ECONNABORTED', 'ETIMEDOUT', 'ERR_BAD_RESPONSE'];

/**
 * How an attempt ends, for the gate, when `statusCodes` are its call's failure statuses: a failure
 * is what the call would retry for. Made once for each gated adapter.
 */
const endingsOf =
  (statusCodes: readonly number[]) =>
  (response: AxiosResponse | undefined, error: AxiosError | undefined, sentAt: number): Ending => {
    if (!response) {
      const { kind } = classifyFailure({ code: error?.code, causeCode: causeCodeOf(error) });
      const originWide = !ROUTE_FAULTS.includes(error?.code);
      // A connection's fault on a kept-alive socket that the server (or a middlebox) closed while
      // idle (a reset, a hang-up) says nothing of the origin: Node's docs retry it at once
      // (`request.reusedSocket`, on the request follow-redirects sends: with `maxRedirects: 0`
      // it is not read), as the call does. Counted, ten after an idle second opened the breaker.
      if (kind !== 'transient' || (error?.request?._currentRequest?.reusedSocket && originWide))
        return { sentAt };
      return { result: 'failure', originWide, sentAt };
    }
    // The success path: a plain success that says nothing of rate limits needs no more reading.
    if (isPlainSuccess(response)) return { result: 'success', sentAt };
    const signals = signalsOf(response);
    const { status, waitMs } = signals;
    const throttled = status === 429 || (status === 503 && waitMs !== undefined);
    return {
      ...signals,
      result: throttled ? 'throttled' : statusCodes.includes(status) ? 'failure' : 'success',
      sentAt,
    };
  };

/** Tells the gate of a failed attempt that did not pass it (`retryInterceptor` alone). */
export function observeFailure(
  control: LoadControl,
  failure: AxiosError & { config: InternalAxiosRequestConfig },
  statusCodes: readonly number[],
): void {
  const at = now();
  control.observe(
    whereOf(failure.config),
    at,
    endingsOf(statusCodes)(failure.response, failure, at),
  );
}

/**
 * An attempt at the gate: where it goes, when it came, the latest it may leave, and the reason it
 * stops if it cannot by then.
 */
interface Bound {
  readonly where: Where;
  readonly start: number;
  /** When its call began (its first attempt). */
  readonly began: number;
  readonly latestAt: number;
  readonly lateReason: StopReason;
  /** When the call must have settled: its deadline, else `Infinity`. */
  readonly endAt: number;
  /** The latest it may wait for an open breaker (see `boundOf`). */
  readonly openLimit: number;
}

/**
 * An attempt that comes to the gate now, and how long it may wait there: no longer than
 * `maxRetryAfterMs`, nor past its deadline, with enough time left to be useful (its origin's usual
 * latency, if more). Not its axios `timeout`: that bounds each attempt once sent, and with load
 * control off a retry waits its server's `Retry-After` whatever the timeout (a call held for less
 * failed where off succeeded: issue 21).
 */
function boundOf(
  config: InternalAxiosRequestConfig,
  { retry, settings }: CallSettings,
  control: LoadControl,
): Bound {
  const where = whereOf(config);
  const start = now();
  const state = config.retryState;
  const began = state?.startedAt ?? start;
  // A call with retries off has no deadline.
  const endAt = retry && state ? began + (retry.deadlineMs ?? Infinity) : Infinity;
  const byEnd = endAt - Math.max(MIN_USEFUL_MS, control.latencyOf(where[0]));
  const byWait = start + settings.maxRetryAfterMs;
  const [latestAt, lateReason]: [number, StopReason] =
    byWait < byEnd ? [byWait, 'retry-after-too-long'] : [byEnd, 'deadline'];
  // Without a deadline, an open breaker is waited for until the call's retries could have been
  // spent at their backoff's ceilings, counted from its start: load control off would have spent
  // them on the origin, and a short outage fails no call that off would have done (issue 21,
  // seed 1040: a worker failing at once drained its queue).
  let open = latestAt;
  if (endAt === Infinity) {
    open = began;
    for (let n = 1; retry && n <= Math.min(retry.retries, 30); n++) {
      open += backoffCeiling(n, retry);
    }
  }
  return { where, start, began, latestAt, lateReason, endAt, openLimit: Math.min(open, latestAt) };
}

type GateCode = typeof ERR_CIRCUIT_OPEN | typeof ERR_RATE_LIMITED;

/**
 * A wait at the gate: until `until`, or until a breaker of `scopes` changes, or (`forSlot`) until
 * it is no longer paced; rejects if the call is canceled.
 */
function waitAtGate(control: LoadControl, config: InternalAxiosRequestConfig, startedAt: number) {
  return (until: number, scopes: readonly Scope[], forSlot?: boolean): Promise<void> =>
    sleep(until - now(), {
      interruption: cancellationOf(config),
      cancelError: () => cancellationError(config),
      wake: (wake) => scopes.map((s) => control.waiters(s, forSlot).enqueue(startedAt, wake)),
    });
}

/**
 * The pass once the gate lets the attempt go: at once if nothing holds it (no promise hop on
 * the success path), else a promise; rejects with the gate's error.
 */
function pass(
  control: LoadControl,
  config: InternalAxiosRequestConfig,
  bound: Bound,
): Pass | Promise<Pass> {
  const { where, start } = bound;
  const verdict = control.admit(where, start, bound.latestAt);
  if (verdict.kind === 'go' && verdict.at <= start) return verdict.pass;
  const waitUntil = waitAtGate(control, config, bound.began);
  // The gate's error: `scope` (the origin, or the route: `<origin>/users/:id`) stopped it; an
  // open breaker stops a call with no deadline as `circuit-open`.
  const stop = (code: GateCode, at: number, scope = where[0]) => {
    const stopReason =
      code === ERR_CIRCUIT_OPEN && bound.endAt === Infinity ? 'circuit-open' : bound.lateReason;
    const retryAfterMs = Math.max(0, Math.ceil(at - now()));
    const error: GateError = new AxiosError(
      `axios-safe-retry: ${scope} ${code === ERR_CIRCUIT_OPEN ? 'circuit open' : 'rate limited'}; retry in ${retryAfterMs} ms`,
      code,
      config,
    );
    error[STOP] = { stopReason, retryAfterMs };
    return error;
  };
  return (async () => {
    for (let v: Verdict = verdict; ; v = control.admit(where, now(), bound.latestAt)) {
      if (v.kind === 'go') {
        const { pass: held } = v;
        let admitted: boolean | undefined;
        try {
          // Until the slot, or until the scope stops pacing or cuts its rate (see `pacerChange`).
          await waitUntil(v.at, [held.origin, held.route], true);
          // A breaker opened, or the rate was decided again, meanwhile: back to the gate, anew.
          admitted = control.isStillAdmitted(held);
        } finally {
          if (!admitted) control.settle(held, now(), { sentAt: now() });
        }
        if (admitted) return held;
      } else if (v.kind === 'late') {
        // Held past its latest on the server's word (never a guessed rate's), as off would be; on
        // a hold it has no evidence of (another's, a write), it waits for its probe's answer first.
        if (v.proof <= 0) throw stop(ERR_RATE_LIMITED, v.at);
        await waitUntil(now() + v.proof, []);
      } else {
        // An open breaker: the call waits within its bound (`boundOf`), woken when it changes (a
        // probe in flight is expected back within the origin's usual latency). A known end past
        // the bound fails a call with a deadline at once; without one, it waits the bound out.
        const comparable = v.until !== Infinity && bound.endAt !== Infinity;
        if (comparable ? v.until > bound.openLimit : now() >= bound.openLimit) {
          throw stop(
            ERR_CIRCUIT_OPEN,
            v.until === Infinity ? now() + control.latencyOf(where[0]) : v.until,
            v.scope.name,
          );
        }
        await waitUntil(Math.min(v.until, bound.openLimit), [v.scope]);
      }
    }
  })();
}

/**
 * An adapter that sends through `adapter` (a function, or names for axios's `getAdapter`) once the
 * gate lets the attempt go; `undefined` when this axios cannot resolve `adapter`.
 */
function gatedAdapter(
  adapter: unknown,
  control: LoadControl,
  call: CallSettings,
): AxiosAdapter | undefined {
  const endingOf = endingsOf(call.settings.statusCodes);
  const fn = typeof adapter === 'function';
  if (!fn && !getAdapter) return undefined;
  const gated = (config: InternalAxiosRequestConfig): Promise<AxiosResponse> => {
    const send = fn ? (adapter as AxiosAdapter) : (getAdapter as GetAdapter)(adapter, config);
    const sendThrough = (passed: Pass, sentAt: number): Promise<AxiosResponse> => {
      const settle = (response: AxiosResponse | undefined, error?: AxiosError) =>
        control.settle(passed, now(), endingOf(response, error, sentAt));
      // Observed on a branch of its own: the outcome reaches axios with no promise hop added.
      let sent: Promise<AxiosResponse>;
      try {
        sent = send(config);
      } catch (error) {
        settle(undefined, error as AxiosError);
        throw error;
      }
      // A response the caller's `validateStatus` accepts (a 503 it reads itself) is no failure
      // it retries, nor one to hold other calls for: it counts as nothing (issue 21).
      sent.then(
        (response) => settle(response.status < 400 ? response : undefined),
        (error: AxiosError) => settle(error?.response, error),
      );
      return sent;
    };
    const bound = boundOf(config, call, control);
    const passed = pass(control, config, bound);
    // Let through at once: it is sent now, at its `start`.
    if (!(passed instanceof Promise)) return sendThrough(passed, bound.start);
    return passed.then((held) => {
      const waited = now() - bound.start;
      const state = config.retryState;
      if (waited > 0 && state) {
        config.retryState = { ...state, waitedMs: (state.waitedMs ?? 0) + waited };
        // The attempt's timeout was set before the wait: what is left of the deadline now.
        if (bound.endAt < Infinity) clampTimeout(config, bound.endAt - now());
      }
      return sendThrough(held, now());
    });
  };
  return Object.assign(gated, { [ORIGINAL]: adapter });
}

/** Sends an attempt through the gate of its origin, in place of its adapter. */
export type Gate = (config: InternalAxiosRequestConfig, call: CallSettings) => void;

/** Whose default adapter a call with none of its own is sent with: the instance, or `axios`. */
export type Sender = { readonly defaults: { readonly adapter?: unknown } };

/**
 * The gate of a client's calls. The wrapper of the last adapter and retry options it saw is kept
 * (a client sends with one adapter, most calls under its own options), so the success path builds
 * none; a call with settings of its own gets a wrapper of its own.
 */
export function createGate(control: LoadControl, sender: Sender): Gate {
  // The retry options and adapters of the kept wrapper, as a list (none yet), and that wrapper.
  let last: unknown[] = [];
  let kept: AxiosAdapter | undefined;
  return (config, call) => {
    // The adapter the attempt's config holds, unwrapped.
    const own = config.adapter as Partial<Gated> | undefined;
    const adapter = own?.[ORIGINAL] ?? own ?? sender.defaults.adapter;
    // axios gives each call a copy of its list of adapters (Node's default): a list of the same
    // adapters is the same (as `getAdapter` reads it), or each call would make a wrapper.
    const list = Array.isArray(adapter) ? [call.retry, ...adapter] : [call.retry, adapter];
    if (list.length - last.length || list.some((a, i) => a !== last[i])) {
      last = list;
      kept = gatedAdapter(adapter, control, call);
    }
    if (kept) config.adapter = kept;
  };
}
