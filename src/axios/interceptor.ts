import type { AxiosError, AxiosInstance, AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import { axios } from '../contract/axios';
import { CONTEXT_KEY, type FollowInbound } from '../contract/call-context';
import type { RetryOptions, RetryState, StopReason } from '../contract/types';
import { causeCodeOf, classifyFailure } from '../http/classify';
import { readHeader } from '../http/read-header';
import { releaseResponse } from '../http/release-response';
import { isReplayableBody } from '../http/replayable-body';
import { signalsOf } from '../http/response-signals';
import { whereOf } from '../http/route';
import { createLoadControl, type LoadControl } from '../load-control/load-control';
import { type CallSettings, settingsOf } from '../options/call-settings';
import {
  type ClientSettings,
  type ResolvedOptions,
  resolveClientOptions,
} from '../options/options';
import { assertAttachable, markAttached, notAnErrorProblem } from '../options/usage-errors';
import { createRetryBudget, type RetryBudget } from '../retry/budget';
import { type AttemptOutcome, decide, isPacedThrottle } from '../retry/policy';
import { cancellationError, cancellationOf } from '../runtime/cancellation';
import { now as clockNow } from '../runtime/clock';
import { publish } from '../runtime/metrics';
import { sleep } from '../runtime/sleep';
import { boundAttempt, clampTimeout, deadlineError, settleAttempt } from './attempt-deadline';
import { createGate, type Gate, gateStopOf, observeFailure, type Sender } from './gate';
import { askShouldRetry, retryDelayOf } from './hooks';
import { idempotencyHeader, putHeader, stampIdempotencyKey } from './idempotency';
import { type Reissue, reissueThrough } from './reissue';
import { attached } from './view';

/** `process`, where there is one (the main bundle is typed without Node's types). */
type NodeLike = { process?: { versions?: { node?: string } } };

type FailedAttempt = AxiosError & { config: InternalAxiosRequestConfig };

/** An axios error of a request (not, say, an error thrown by another interceptor). */
const isFailedAttempt = (error: unknown): error is FailedAttempt =>
  axios.isAxiosError(error) && !!error.config;

/**
 * Clamps the attempt's timeout to what is left of the call's deadline, so a hanging server cannot
 * hold it, and bounds the whole attempt (a body that drips in included) by the same time. The
 * attempt's config carries the call's state.
 */
function clampToDeadline(
  config: InternalAxiosRequestConfig,
  options: ResolvedOptions | false,
  now: number,
): void {
  const state = config.retryState as RetryState;
  if (!options) return;
  if (options.deadlineMs) {
    boundAttempt(config, clampTimeout(config, state.startedAt + options.deadlineMs - now));
  }
  // The headers of calls that propagate: `propagate: true` (which a server layer sets on the
  // calls it sees: call-context.ts), or by default outside a browser, where they cost no CORS
  // preflight (so the top of a chain, a job or a gateway, sends its deadline down). Literals, not
  // call-context.ts's constants, and in lower case (as HTTP/2 sends them, and like the bundle's
  // other header names): a smaller bundle.
  if (options.propagate ?? (globalThis as NodeLike).process?.versions?.node) {
    putHeader(config.headers, 'retry-attempt', state.retryCount + 1);
    if (config.timeout) putHeader(config.headers, 'request-deadline-ms', config.timeout);
  }
}

/**
 * A call being retried, made at its first failure: its retry options, its client's retry budget,
 * and the attempt it is at (its state goes from step to step on its own).
 */
interface Retrying {
  readonly retryOptions: ResolvedOptions;
  readonly budget: RetryBudget | undefined;
  /** Its last failed attempt. */
  failed: FailedAttempt;
  /** The failed attempt before it: the call ends with its error if the gate holds back the retry. */
  previous?: FailedAttempt;
}

function outcomeOf(
  { failed: failure, retryOptions: options }: Retrying,
  state: RetryState,
  control: LoadControl | undefined,
): AttemptOutcome {
  const { config, response } = failure;
  const signals = response && signalsOf(response);
  const status = signals?.status;
  return {
    classification: classifyFailure({
      code: failure.code,
      status,
      causeCode: causeCodeOf(failure),
      message: failure.message,
    }),
    status,
    serverWaitMs: signals?.askedMs,
    ...control?.standing(whereOf(config), clockNow()),
    // axios sets a method on every request it makes (lower case, `get` by default).
    method: config.method?.toUpperCase() as string,
    hasIdempotencyKey:
      (state.idempotencyKey ?? readHeader(config.headers, idempotencyHeader(options))) !==
      undefined,
    replayableBody: isReplayableBody(config.data),
    advice: signals?.advice,
    delay: retryDelayOf(options, failure, state.retryCount + 1),
  };
}

/**
 * Ends the call: the error is rethrown as it is, with the call's final state on its config: why
 * retrying stopped (and, when the gate stopped it, when its origin is expected to accept again).
 */
function stopped(
  error: unknown,
  retryState: RetryState & { readonly stopReason: StopReason },
  // An axios error carries its config; a cancellation's error may not.
  config: InternalAxiosRequestConfig = (error as FailedAttempt).config,
): unknown {
  config.retryState = retryState;
  // A server layer's hook (call-context.ts): it marks the inbound request's answer.
  (globalThis as Record<symbol, FollowInbound | undefined>)[CONTEXT_KEY]?.(config, error);
  publish('stop', () => ({ stopReason: retryState.stopReason, retryState, error, config }));
  return error;
}

/** What a client's calls share: its settings, its load control and budget, and how it sends. */
interface Client {
  readonly settings: ClientSettings;
  readonly control: LoadControl | undefined;
  readonly budget: RetryBudget | undefined;
  readonly gate: Gate | undefined;
  readonly reissue: Reissue;
}

/** Starts a call's state, and records the call in the retry budget. */
function startCall(client: Client, now: number, idempotencyKey?: string | false): RetryState {
  client.budget?.recordRequest(now);
  return {
    retryCount: 0,
    startedAt: now,
    delays: [],
    ...(idempotencyKey && { idempotencyKey }),
  };
}

/**
 * The request side, first attempt: starts the call's state, stamps the key, records the call in
 * the budget, clamps the timeout, and sends the attempt through the gate. (A retry, which already
 * has its state, was clamped and gated by `sendRetry`.)
 */
function onFirstAttempt(
  client: Client,
  config: InternalAxiosRequestConfig,
): InternalAxiosRequestConfig {
  if (config.retryState) return config;
  try {
    // A server layer's hook (call-context.ts), if one is installed.
    (globalThis as Record<symbol, FollowInbound | undefined>)[CONTEXT_KEY]?.(
      config,
      client.settings,
    );
    const call = settingsOf(client.settings, config);
    const now = clockNow();
    const key = call.retry && stampIdempotencyKey(config.headers, config.method, call.retry);
    config.retryState = startCall(client, now, key);
    clampToDeadline(config, call.retry, now);
    client.gate?.(config, call);
  } catch (error) {
    // This interceptor is registered as synchronous (axios then skips a promise per request),
    // and some axios 1.x versions still send a request whose synchronous interceptor threw.
    // Failing the adapter instead rejects the call with this error and sends nothing.
    config.adapter = () => Promise.reject(error);
  }
  return config;
}

/**
 * Step 1, stop before deciding: ends the call without asking the policy when the gate held the
 * attempt back or the deadline cut it. Returns the call's state, marked when the server may have
 * acted on the attempt.
 */
function stopBeforeDeciding(
  { failed: failure, retryOptions: options, previous }: Retrying,
  state: RetryState,
  outcome: AttemptOutcome,
): RetryState {
  const deadlineCut = settleAttempt(failure.config);
  const { classification } = outcome;
  // A timeout or a cut connection (after it was sent) of a method not harmless to repeat: the
  // server may have acted on it.
  if (
    (deadlineCut
      ? failure.request
      : classification.kind === 'transient' && !classification.neverSent) &&
    !options.methods.includes(outcome.method)
  ) {
    state = { ...state, maybePerformed: true };
  }
  // The gate held the attempt back (an open breaker, or no slot before the deadline), so nothing
  // was sent: a retry stopped so ends with the error of the attempt before it.
  const gateStop = gateStopOf(failure);
  if (gateStop) throw stopped(previous ?? failure, { ...state, ...gateStop });
  if (deadlineCut) {
    throw stopped(deadlineError(failure, options.deadlineMs), { ...state, stopReason: 'deadline' });
  }
  return state;
}

/**
 * Step 2, decide: retry after a delay, with the state the retry is sent with, or end the call
 * with the policy's reason.
 */
async function decideRetry(
  { failed: failure, retryOptions: options, budget }: Retrying,
  state: RetryState,
  outcome: AttemptOutcome,
): Promise<[delayMs: number, next: RetryState]> {
  // The policy asks shouldRetry only when its answer matters. The answer may be a promise, which
  // cannot be awaited inside the pure policy: asking ends that decision (before any draw or
  // charge), and the call is decided again with the answer.
  let pending: Promise<boolean | undefined> | undefined;
  const decideWith = (verdict: () => boolean | undefined) =>
    decide({ ...outcome, verdict, budget, decisionAt: clockNow() }, state, options);
  let decision = decideWith(() => {
    pending = askShouldRetry(options, failure, state);
    return pending && false;
  });
  if (pending) {
    const answer = await pending;
    decision = decideWith(() => answer);
  }
  if (!decision.retry) throw stopped(failure, { ...state, stopReason: decision.reason });
  const { delayMs, finalAttempt } = decision;
  return [
    delayMs,
    {
      ...state,
      retryCount: state.retryCount + 1,
      delays: [...state.delays, delayMs],
      ...(finalAttempt && { finalAttempt }),
      ...(outcome.classification.neverSent && { refusedCount: (state.refusedCount ?? 0) + 1 }),
      ...(isPacedThrottle(outcome) && { throttledCount: (state.throttledCount ?? 0) + 1 }),
    },
  ];
}

/**
 * Step 3, pause: releases the failed attempt's response, sleeps the retry's delay, and calls
 * `onRetry` once the timer is set (the retry is the call's `state.retryCount + 1`th). A
 * cancellation during the sleep ends the call.
 */
function pause(
  { failed: failure, retryOptions: options }: Retrying,
  state: RetryState,
  delayMs: number,
): Promise<void> {
  const { config } = failure;
  releaseResponse(failure);
  return sleep(delayMs, {
    interruption: cancellationOf(config),
    cancelError: () =>
      stopped(cancellationError(config), { ...state, stopReason: 'canceled' }, config),
    onSet: () => {
      const event = Object.freeze({
        retryCount: state.retryCount + 1,
        delayMs,
        error: failure,
        config,
      });
      publish('retry', () => event);
      return options.onRetry?.(event);
    },
  });
}

/**
 * Step 4, send the retry (its config, which carries its state): clamps it to the deadline, sends
 * it through the gate, and settles its deadline bound. Rejects with the retry's error.
 */
async function sendRetry(
  client: Client,
  call: CallSettings,
  retryConfig: InternalAxiosRequestConfig,
): Promise<AxiosResponse> {
  clampToDeadline(retryConfig, call.retry, clockNow());
  client.gate?.(retryConfig, call);
  try {
    const response = await client.reissue(retryConfig);
    // axios merged the retry's config into a new one. Settle that one (which gives the caller's
    // signal back to the config the caller sees), and this one too in case another interceptor
    // swapped the signal.
    settleAttempt(response.config);
    settleAttempt(retryConfig);
    return response;
  } catch (error) {
    if (!isFailedAttempt(error)) settleAttempt(retryConfig);
    throw error;
  }
}

/**
 * The response-error side: the call stops with a reason, or pauses and is sent again, until it
 * settles.
 */
async function onFailure(client: Client, error: unknown): Promise<AxiosResponse> {
  if (!isFailedAttempt(error)) throw notAnErrorProblem(error) ?? error;
  const call = settingsOf(client.settings, error.config);
  let state = error.config.retryState;
  if (!state) {
    // Used alone (no request side), the call's state starts at its first failure, and the gate
    // learns of the first attempt only now.
    if (client.control) observeFailure(client.control, error, call.settings.statusCodes);
    state = startCall(
      client,
      clockNow(),
      readHeader(error.config.headers, idempotencyHeader(call.settings)),
    );
  }
  if (!call.retry) throw stopped(error, { ...state, stopReason: 'disabled', ...gateStopOf(error) });
  const retrying: Retrying = { retryOptions: call.retry, budget: client.budget, failed: error };
  for (;;) {
    const outcome = outcomeOf(retrying, state, client.control);
    state = stopBeforeDeciding(retrying, state, outcome);
    const [delayMs, next] = await decideRetry(retrying, state, outcome);
    await pause(retrying, state, delayMs);
    try {
      return await sendRetry(client, call, { ...retrying.failed.config, retryState: next });
    } catch (retryError) {
      if (!isFailedAttempt(retryError)) throw retryError;
      retrying.previous = retrying.failed;
      retrying.failed = retryError;
      // The gate may have added to it how long the retry waited.
      state = retryError.config.retryState ?? next;
    }
  }
}

interface RetryHandlers extends Client {
  /** The request side, first attempt (see `onFirstAttempt`). */
  onRequest(config: InternalAxiosRequestConfig): InternalAxiosRequestConfig;
  /** The response side, first attempt: ends the attempt's deadline bound. */
  onResponse(response: AxiosResponse): AxiosResponse;
  /** The response-error side (see `onFailure`). */
  onError(error: unknown): Promise<AxiosResponse>;
}

function createRetryHandlers(
  options: RetryOptions | undefined,
  reissue: Reissue,
  sender: Sender,
): RetryHandlers {
  const settings = resolveClientOptions(options);
  // With the breaker and pacing off, the origins' outcomes are still counted: the retry budget
  // charges retries by the same rule either way.
  const control =
    settings.circuitBreaker || settings.pacing || settings.budget
      ? createLoadControl({
          // Its breaker, pacing and store (the client's other settings ride along, unread).
          ...settings,
          random: settings.options.random,
          probeEveryMs: settings.options.maxRetryAfterMs,
        })
      : undefined;
  const handlers: RetryHandlers = {
    settings,
    control,
    budget: settings.budget ? createRetryBudget(settings.budget) : undefined,
    gate: control && createGate(control, sender),
    reissue,
    onRequest: (config) => onFirstAttempt(handlers, config),
    onResponse: (response) => {
      settleAttempt(response.config);
      return response;
    },
    onError: (error) => onFailure(handlers, error),
  };
  return handlers;
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
  return createRetryHandlers(options, reissueThrough(), axios).onError;
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
    instance,
  );
  markAttached(handlers.onError);
  attached.set(instance, handlers);
  const requestId = instance.interceptors.request.use(handlers.onRequest, undefined, {
    synchronous: true,
  });
  const responseId = instance.interceptors.response.use(handlers.onResponse, handlers.onError);
  return () => {
    attached.delete(instance);
    handlers.control?.close();
    instance.interceptors.request.eject(requestId);
    instance.interceptors.response.eject(responseId);
  };
}
