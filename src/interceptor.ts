import axios, {
  type AxiosError,
  type AxiosInstance,
  type AxiosResponse,
  type InternalAxiosRequestConfig,
} from 'axios';
import { boundAttempt, clampTimeout, deadlineError, settleAttempt } from './attempt-deadline';
import { createRetryBudget, type RetryBudget } from './budget';
import { CONTEXT_KEY, type FollowInbound } from './call-context';
import { cancellationError, cancellationOf } from './cancellation';
import { causeCodeOf, classifyFailure } from './classify';
import { now as clockNow } from './clock';
import { adapterOf, type GateStop, gatedAdapter, gateStopOf, observeFailure } from './gate';
import { askShouldRetry, retryDelayOf } from './hooks';
import { idempotencyHeader, readHeader, stampIdempotencyKey } from './idempotency';
import { createLoadControl, type LoadControl } from './load-control';
import { publish } from './metrics';
import { type ResolvedOptions, resolveClientOptions, resolveRequestOptions } from './options';
import { originOf } from './origin';
import { type AttemptOutcome, decide, isPacedThrottle } from './policy';
import { type Reissue, reissueThrough } from './reissue';
import { releaseResponse } from './release-response';
import { isReplayableBody } from './replayable-body';
import { signalsOf } from './response-signals';
import { routeOf } from './route';
import { sleep } from './sleep';
import type { RetryOptions, RetryState, StopReason } from './types';
import { assertAttachable, markAttached, notAnErrorProblem } from './usage-errors';
import { attached } from './view';

type FailedAttempt = AxiosError & { config: InternalAxiosRequestConfig };

/** An axios error of a request (not, say, an error thrown by another interceptor). */
function isFailedAttempt(error: unknown): error is FailedAttempt {
  return axios.isAxiosError(error) && !!error.config;
}

function newState(now: number, idempotencyKey: string | undefined): RetryState {
  return {
    retryCount: 0,
    startedAt: now,
    delays: [],
    ...(idempotencyKey ? { idempotencyKey } : {}),
  };
}

/**
 * Clamps the attempt's timeout to what is left of the call's deadline, so a hanging server cannot
 * hold it, and bounds the whole attempt (a body that drips in included) by the same time.
 */
function clampToDeadline(
  config: InternalAxiosRequestConfig,
  options: ResolvedOptions | false,
  state: RetryState,
  now: number,
): void {
  if (!options) return;
  if (options.deadlineMs !== undefined) {
    const remaining = Math.max(1, Math.ceil(state.startedAt + options.deadlineMs - now));
    clampTimeout(config, remaining);
    boundAttempt(config, remaining);
  }
  // The headers of calls that propagate (`propagate: true`, which a server layer sets on the
  // calls it sees: call-context.ts). Literals, not call-context.ts's constants, and in lower case
  // (as HTTP/2 sends them, and like the bundle's other header names): a smaller bundle.
  if (options.propagate) {
    // (axios writes a number as a string.)
    config.headers.set('retry-attempt', state.retryCount + 1);
    if (config.timeout) config.headers.set('request-deadline-ms', config.timeout);
  }
}

function outcomeOf(
  failure: FailedAttempt,
  options: ResolvedOptions,
  state: RetryState,
  control: LoadControl | undefined,
): Omit<AttemptOutcome, 'verdict'> {
  const { config, response } = failure;
  const now = clockNow();
  const signals = response && signalsOf(response, Date.now());
  const origin = originOf(config.baseURL, config.url);
  const route = routeOf(config.baseURL, config.url);
  const status = signals?.status;
  return {
    classification: classifyFailure({
      code: failure.code,
      status,
      causeCode: causeCodeOf(failure),
      message: failure.message,
    }),
    status,
    serverWaitMs: signals?.waitMs,
    retryIsFree: control?.isRetryBudgetFree(origin, route, now) ?? false,
    paced: control?.isPaced(origin, route, now) ?? false,
    method: (config.method ?? 'get').toUpperCase(),
    hasIdempotencyKey:
      state.idempotencyKey !== undefined ||
      readHeader(config.headers, idempotencyHeader(options)) !== undefined,
    replayableBody: isReplayableBody(config.data),
    advice: signals?.advice,
    delay: retryDelayOf(options, failure, state.retryCount + 1),
  };
}

/**
 * Ends the call: the error is rethrown as it is, with why retrying stopped on its config (and,
 * when the gate stopped it, when its origin is expected to accept again).
 */
function stopped(
  error: unknown,
  config: InternalAxiosRequestConfig,
  state: RetryState,
  reason: StopReason | GateStop,
): unknown {
  const retryState: RetryState =
    typeof reason === 'string'
      ? { ...state, stopReason: reason }
      : { ...state, stopReason: reason.reason, retryAfterMs: reason.retryAfterMs };
  config.retryState = retryState;
  publish('stop', () => ({ stopReason: retryState.stopReason, retryState, error, config }));
  return error;
}

interface RetryHandlers {
  readonly control: LoadControl | undefined;
  readonly budget: RetryBudget | undefined;
  /**
   * Request side, first attempt: starts the call's state, stamps the key, records the call in the
   * budget, clamps the timeout. (A retry, which already has its state, was clamped by onError.)
   */
  onRequest(config: InternalAxiosRequestConfig): InternalAxiosRequestConfig;
  /** Response side, first attempt: ends the attempt's deadline bound. */
  onResponse(response: AxiosResponse): AxiosResponse;
  /** Response-error side: stops with a reason, or sleeps and sends the call again, until it settles. */
  onError(error: unknown): Promise<AxiosResponse>;
}

function createRetryHandlers(
  options: RetryOptions | undefined,
  reissue: Reissue,
  defaultAdapter: () => unknown,
): RetryHandlers {
  const client = resolveClientOptions(options);
  const budget = client.budget ? createRetryBudget(client.budget) : undefined;
  // With the breaker and pacing off, the origins' outcomes are still counted: the retry budget
  // charges retries by the same rule either way.
  const control =
    client.circuitBreaker || client.pacing || client.budget
      ? createLoadControl({
          circuitBreaker: client.circuitBreaker,
          pacing: client.pacing,
          random: client.options.random,
          probeEveryMs: client.options.maxRetryAfterMs,
          store: client.store,
        })
      : undefined;

  // The wrapper of each adapter under the client's own options, made once (the success path).
  const shared = new WeakMap<object, ReturnType<typeof gatedAdapter>>();
  /** Sends this attempt through the gate of its origin, in place of its adapter. */
  function gate(config: InternalAxiosRequestConfig, callOptions: ResolvedOptions | false): void {
    if (!control) return;
    const adapter = adapterOf(config) ?? defaultAdapter();
    const cacheable = callOptions === client.options && adapter instanceof Object;
    let gated = cacheable ? shared.get(adapter) : undefined;
    if (!gated) {
      const statusCodes = (callOptions || client.options).statusCodes;
      gated = gatedAdapter(
        adapter,
        control,
        callOptions,
        statusCodes,
        client.options.maxRetryAfterMs,
      );
      if (cacheable) shared.set(adapter, gated);
    }
    config.adapter = gated ?? config.adapter;
  }

  function startCall(now: number, idempotencyKey: string | undefined): RetryState {
    budget?.recordRequest(now);
    return newState(now, idempotencyKey);
  }

  return {
    control,
    budget,
    onRequest(config) {
      if (config.retryState) return config;
      try {
        // A server layer's hook (call-context.ts), if one is installed.
        (globalThis as Record<symbol, FollowInbound | undefined>)[CONTEXT_KEY]?.(config, client);
        const callOptions = resolveRequestOptions(client, config.retry);
        const now = clockNow();
        const key = callOptions
          ? stampIdempotencyKey(config.headers, config.method, callOptions)
          : undefined;
        config.retryState = startCall(now, key);
        clampToDeadline(config, callOptions, config.retryState, now);
        gate(config, callOptions);
      } catch (error) {
        // This interceptor is registered as synchronous (axios then skips a promise per request),
        // and some axios 1.x versions still send a request whose synchronous interceptor threw.
        // Failing the adapter instead rejects the call with this error and sends nothing.
        config.adapter = () => Promise.reject(error);
      }
      return config;
    },

    onResponse(response) {
      settleAttempt(response.config);
      return response;
    },

    async onError(error) {
      if (!isFailedAttempt(error)) throw notAnErrorProblem(error) ?? error;
      let failure = error;
      const callOptions = resolveRequestOptions(client, failure.config.retry);
      // Used alone (no request side), the call's state starts at its first failure, and the
      // gate learns of the first attempt only now.
      if (!failure.config.retryState && control) {
        observeFailure(control, failure, (callOptions || client.options).statusCodes);
      }
      let state =
        failure.config.retryState ??
        startCall(
          clockNow(),
          readHeader(failure.config.headers, idempotencyHeader(callOptions || client.options)),
        );
      if (!callOptions) {
        throw stopped(failure, failure.config, state, gateStopOf(failure) ?? 'disabled');
      }

      let lastAttempt: FailedAttempt | undefined;
      for (;;) {
        const { config } = failure;
        const deadlineCut = settleAttempt(config);
        const outcome = outcomeOf(failure, callOptions, state, control);
        const { kind, neverSent } = outcome.classification;
        // A timeout or a cut connection (after it was sent) of a method not harmless to repeat:
        // the server may have acted on it.
        if (
          (deadlineCut ? failure.request : kind === 'transient' && !neverSent) &&
          !callOptions.methods.includes(outcome.method)
        ) {
          state = { ...state, maybePerformed: true };
        }
        // The gate held the attempt back (open breaker, or no slot before the deadline): nothing
        // was sent. A retry stopped so keeps the error of the attempt before it.
        const gateStop = gateStopOf(failure);
        if (gateStop) {
          const last = lastAttempt ?? failure;
          throw stopped(last, last.config, state, gateStop);
        }
        if (deadlineCut) {
          throw stopped(deadlineError(failure, callOptions.deadlineMs), config, state, 'deadline');
        }
        // shouldRetry's answer is awaited: asked, it stops this decision (before any draw or
        // charge), and the call is decided again with the answer.
        let pending: Promise<boolean | undefined> | undefined;
        const decideWith = (verdict: () => boolean | undefined) =>
          decide({ ...outcome, verdict }, state, callOptions, budget, clockNow());
        let decision = decideWith(() => {
          pending = askShouldRetry(callOptions, failure, state);
          return pending && false;
        });
        if (pending) {
          const answer = await pending;
          decision = decideWith(() => answer);
        }
        if (!decision.retry) throw stopped(failure, config, state, decision.reason);

        const { delayMs, finalAttempt } = decision;
        const next: RetryState = {
          ...state,
          retryCount: state.retryCount + 1,
          delays: [...state.delays, delayMs],
          ...(finalAttempt ? { finalAttempt } : {}),
          ...(outcome.classification.neverSent
            ? { refusedCount: (state.refusedCount ?? 0) + 1 }
            : {}),
          ...(isPacedThrottle(outcome) ? { throttledCount: (state.throttledCount ?? 0) + 1 } : {}),
        };
        const current = failure;
        releaseResponse(current);
        await sleep(
          delayMs,
          cancellationOf(config),
          () => stopped(cancellationError(config), config, state, 'canceled'),
          () => {
            const event = Object.freeze({
              retryCount: next.retryCount,
              delayMs,
              error: current,
              config,
            });
            publish('retry', () => event);
            return callOptions.onRetry?.(event);
          },
        );

        const retryConfig: InternalAxiosRequestConfig = { ...config, retryState: next };
        clampToDeadline(retryConfig, callOptions, next, clockNow());
        gate(retryConfig, callOptions);
        try {
          const response = await reissue(retryConfig);
          // axios merged the retry's config into a new one: settle that (the caller's signal back
          // on the config the caller sees), and this one if another interceptor swapped the signal.
          settleAttempt(response.config);
          settleAttempt(retryConfig);
          return response;
        } catch (retryError) {
          if (!isFailedAttempt(retryError)) {
            settleAttempt(retryConfig);
            throw retryError;
          }
          lastAttempt = failure;
          failure = retryError;
          // The gate may have added to it how long the retry waited.
          state = failure.config.retryState ?? next;
        }
      }
    },
  };
}

/**
 * The response-error interceptor alone:
 * `instance.interceptors.response.use(undefined, retryInterceptor(options))`.
 * It sees a call only once it has failed, so it cannot stamp an idempotency key on the first
 * attempt nor clamp that attempt to the deadline; prefer `attachRetry`.
 *
 * Its parameter is typed `Error` so that the one-argument `use(retryInterceptor())`, which puts it
 * in the success slot where it never sees a failure, does not compile; at run time, a handler
 * given a response rejects with a TypeError that shows the working forms.
 */
export function retryInterceptor(options?: RetryOptions): (error: Error) => Promise<AxiosResponse> {
  return createRetryHandlers(options, reissueThrough(), () => axios.defaults.adapter).onError;
}

/**
 * Installs retries on an instance: a request interceptor (state, idempotency key, deadline,
 * budget) and the response-error interceptor. Returns a function that removes both. Throws a
 * TypeError when `instance` is not an axios instance, or already has retries attached.
 */
export function attachRetry(instance: AxiosInstance, options?: RetryOptions): () => void {
  assertAttachable(instance);
  // Retries replay the response interceptors registered before this handler (see reissue.ts).
  const handlers: RetryHandlers = createRetryHandlers(
    options,
    reissueThrough(instance, () => handlers.onError),
    () => instance.defaults.adapter,
  );
  markAttached(handlers.onError);
  attached.set(instance, handlers);
  const requestId = instance.interceptors.request.use(handlers.onRequest, undefined, {
    synchronous: true,
  });
  const responseId = instance.interceptors.response.use(handlers.onResponse, handlers.onError);
  return () => {
    attached.delete(instance);
    instance.interceptors.request.eject(requestId);
    instance.interceptors.response.eject(responseId);
  };
}
