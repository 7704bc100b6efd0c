/// <reference types="node" />
import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  ATTEMPT_HEADER,
  CONTEXT_KEY,
  DEADLINE_HEADER,
  type FollowClient,
  type FollowInbound,
} from '../contract/call-context';
import type { RequestRetryOptions } from '../contract/types';
import { isObject, optionError, type Rule, ruled } from '../options/rules';
import { LAYER_SCHEMA } from './layer-options';
import { gaveUpOnOverload, inboundAttempt, inboundDeadlineMs } from './layer-signals';

/**
 * The response header of a layer that gave up: `Stripe-Should-Retry: false`. Stripe's name, not
 * one of ours: it is the one "don't retry" header that clients already know, and it means exactly
 * this (the client of this package honours it from any server).
 */
export const SHOULD_RETRY_HEADER = 'Stripe-Should-Retry';
export { ATTEMPT_HEADER, DEADLINE_HEADER };

export interface RetryLayerOptions {
  /**
   * The longest inbound deadline taken, in milliseconds: a longer `Request-Deadline-Ms` is cut to
   * this, so that an outside caller cannot make this layer wait for a day.
   * @default 60000
   */
  maxDeadlineMs?: number;
  /**
   * Taken off what is left of the inbound deadline for the calls this layer makes: the time this
   * layer needs to answer its caller once they have failed.
   * @default 50
   */
  marginMs?: number;
  /**
   * Whether to take the inbound request's `Request-Deadline-Ms`, `grpc-timeout` and
   * `Retry-Attempt`: a predicate on the request, true to take them (on the peer address, say, or
   * on a header your gateway sets). An edge service answers callers from the public internet with
   * `() => false`, or with a test that lets its own mesh through. A predicate that does not return
   * `true` (that throws, or returns a promise) counts as false. Untrusted, the request still has
   * a context: its calls are aborted when its caller goes, and its 5xx answer is marked. Unset,
   * every request is trusted, within `maxDeadlineMs`.
   * @default undefined
   */
  trustInbound?: (req: IncomingMessage) => boolean;
}

/** What `inboundRequest()` tells of the inbound request being handled. */
export interface InboundRequest {
  /** What is left of its deadline, less the margin, in milliseconds; `undefined` without one. */
  readonly deadlineLeftMs: number | undefined;
  /** Its `Retry-Attempt`: 1 on a first attempt; `undefined` when it carried none. */
  readonly attempt: number | undefined;
  /** Aborts when its caller has gone: the connection closed before the answer was sent. */
  readonly signal: AbortSignal;
}

interface Inbound {
  /** When its deadline ends, on `performance.now()` (a monotonic clock); `NaN` without one. */
  readonly deadlineAt: number;
  readonly attempt: number | undefined;
  readonly signal: AbortSignal;
  readonly marginMs: number;
  /** A call made while handling it gave up on overload (`upstreamGaveUp`): its 5xx is marked. */
  gaveUp?: boolean;
}

type Next = (error?: unknown) => void;
/** A connect-style middleware: express, connect, or plain node:http (call it before the handler). */
// (`next` takes nothing: it is only ever called so, and Fastify's `done` fits too.)
export type RetryLayerMiddleware = (
  req: IncomingMessage,
  res: ServerResponse,
  next: () => void,
) => void;
// biome-ignore lint/complexity/useMaxParams: express tells an error handler by its fn.length of 4
export type RetryLayerErrorHandler = (
  error: unknown,
  req: IncomingMessage,
  res: ServerResponse,
  next: Next,
) => void;

const storage = new AsyncLocalStorage<Inbound>();

/**
 * What is left of the inbound deadline, in milliseconds; `NaN` without one: every comparison with
 * it is false, so no deadline is ever spent, nor inherited.
 */
function leftOf(inbound: Inbound): number {
  return inbound.deadlineAt - performance.now();
}

/** The inbound deadline is all but spent (within twice the margin): no time to retry above. */
function spentOf(inbound: Inbound): boolean {
  return leftOf(inbound) <= 2 * inbound.marginMs;
}

/** A request header, by its lower-case name; `undefined` unless it came once. */
function headerOf(headers: IncomingMessage['headers'], name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value : undefined;
}

type AnySignal = (signals: AbortSignal[]) => AbortSignal;

/** The hook the main bundle calls on each call's first attempt (see call-context.ts). */
function follow(previous: FollowInbound | undefined): FollowInbound {
  return (config, clientOrError) => {
    const inbound = storage.getStore();
    if (!inbound) return previous?.(config, clientOrError);
    if (config.retryState) {
      // The call stopped. Only one that followed the request (below: `propagate: true` on its
      // `retry`) counts; one that ignores the layer (`propagate: false`) does not mark the answer.
      const followed = (config.retry as RequestRetryOptions | undefined)?.propagate;
      if (followed && gaveUpOnOverload(clientOrError, spentOf(inbound))) inbound.gaveUp = true;
      return;
    }
    const clientOptions = (clientOrError as FollowClient).options;
    // `retry: false`, or a `retry` that is not an object (its resolution rejects it): untouched.
    const retry = config.retry as RequestRetryOptions | undefined;
    if (retry !== undefined && Object(retry) !== retry) return;
    if ((retry?.propagate ?? clientOptions.propagate) === false) return;
    // NaN without an inbound deadline (leftOf).
    const usable = Math.floor(leftOf(inbound) - inbound.marginMs);
    // The caller has gone, or its deadline leaves no time: the call starts no attempt, and the
    // answer is marked now (axios before 1.7 rejects such a call with no config, so its stop is
    // never seen).
    let signal = inbound.signal;
    if (usable < 1) {
      inbound.gaveUp = true;
      signal = AbortSignal.abort();
    }
    const own = config.signal as AbortSignal | undefined;
    const any = (AbortSignal as unknown as { any?: AnySignal }).any;
    if (own && own !== signal) signal = any ? any([own, signal]) : own;
    config.signal = signal;
    const ownDeadline = retry?.deadlineMs ?? clientOptions.deadlineMs;
    const inherit = usable >= 1 && !((ownDeadline as number) <= usable);
    config.retry = { ...retry, propagate: true, ...(inherit ? { deadlineMs: usable } : {}) };
  };
}

const registry = globalThis as Record<symbol, FollowInbound | undefined>;
let installed: FollowInbound | undefined;

/** Installs the hook once per copy of this module, after any other copy's (which it chains to). */
function install(): void {
  if (installed) return;
  installed = follow(registry[CONTEXT_KEY]);
  registry[CONTEXT_KEY] = installed;
}

/**
 * Marks the answer "don't retry" (`Stripe-Should-Retry: false`) when it is a 5xx and a call of
 * the request gave up on overload: hooks this response's `writeHead`, which every answer goes
 * through once (Node's implicit headers, `res.statusCode` then `res.end()` or `res.write()`, call
 * it too), so streamed bodies cost nothing per chunk. An answer that says it itself is left alone.
 */
function markAnswer(res: ServerResponse, inbound: Inbound): void {
  const writeHead = res.writeHead as (status: number, ...rest: unknown[]) => ServerResponse;
  res.writeHead = ((status: number, ...rest: unknown[]) => {
    if (inbound.gaveUp && status >= 500 && !res.hasHeader(SHOULD_RETRY_HEADER)) {
      res.setHeader(SHOULD_RETRY_HEADER, 'false');
    }
    return writeHead.call(res, status, ...rest);
  }) as typeof res.writeHead;
}

/**
 * A connect-style middleware `(req, res, next)` that keeps the inbound request's context (its
 * deadline, its attempt number, whether its caller has gone) in `AsyncLocalStorage`, for every
 * axios client with `attachRetry` that makes a call while the request is handled: such a call
 * takes what is left of the inbound deadline, less `marginMs`, when it has no shorter deadline of
 * its own; it is aborted when the inbound caller goes; and its attempts carry `Retry-Attempt` and
 * `Request-Deadline-Ms`. When such a call gives up on overload (`upstreamGaveUp`), the request's
 * answer, if a 5xx, carries `Stripe-Should-Retry: false`, however the handler writes it. Mount it
 * before the routes (and after body parsers, which lose the context). `retryLayer.errorHandler()`
 * answers such a failure with a 503 of its own.
 */
function createRetryLayer(options: RetryLayerOptions = {}): RetryLayerMiddleware {
  const given = ruled('retryLayer', [isObject, 'an object'], options) as Record<string, unknown>;
  for (const name in given) {
    // (`app.use(retryLayer)`: express called it with a request.)
    if (!(name in LAYER_SCHEMA)) {
      throw optionError(
        given.socket ? 'call `retryLayer()`' : `unknown option \`retryLayer.${name}\``,
      );
    }
  }
  // Each option checked by its rule, or its default (`trustInbound` has none: every request).
  const [maxDeadlineMs, marginMs, trustInbound] = Object.entries(LAYER_SCHEMA).map(
    ([name, rule]: [string, readonly unknown[]]) =>
      given[name] === undefined ? rule[2] : ruled(`retryLayer.${name}`, rule as Rule, given[name]),
  ) as [number, number, RetryLayerOptions['trustInbound']];
  install();
  return (req, res, next) => {
    const controller = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    let headers: IncomingMessage['headers'] = {};
    try {
      // Untrusted (or a predicate that throws): read as if it carried none of the headers.
      if (!trustInbound || trustInbound(req) === true) headers = req.headers;
    } catch {}
    const inbound: Inbound = {
      // (`undefined` plus a number: NaN.)
      deadlineAt:
        performance.now() +
        (inboundDeadlineMs(
          headerOf(headers, DEADLINE_HEADER),
          headerOf(headers, 'grpc-timeout'),
          maxDeadlineMs,
        ) as number),
      attempt: inboundAttempt(headerOf(headers, ATTEMPT_HEADER)),
      signal: controller.signal,
      marginMs,
    };
    markAnswer(res, inbound);
    storage.run(inbound, () => next());
  };
}

/**
 * Whether this outgoing call's error means "the layer below gave up on overload": the layer then
 * answers its own caller "don't retry" (`answerUpstreamGaveUp`). A call stopped by its deadline
 * counts when the inbound deadline is all but spent (within twice the margin).
 */
export function upstreamGaveUp(error: unknown): boolean {
  const inbound = storage.getStore();
  return gaveUpOnOverload(error, !!inbound && spentOf(inbound));
}

/**
 * Answers "don't retry": `503` with `Stripe-Should-Retry: false`, which axios-safe-retry's client
 * honours (it stops with `upstream-gave-up`), and so do Stripe's own clients.
 */
export function answerUpstreamGaveUp(res: ServerResponse): void {
  res
    .writeHead(503, { [SHOULD_RETRY_HEADER]: 'false', 'Content-Type': 'application/json' })
    .end('{"error":"upstream gave up"}');
}

/**
 * An express error handler `(error, req, res, next)`: answers "don't retry" when the handler's
 * error is an outgoing call that gave up on overload (`upstreamGaveUp`), else passes it on.
 */
function errorHandler(): RetryLayerErrorHandler {
  // biome-ignore lint/complexity/useMaxParams: express tells an error handler by its fn.length of 4
  return (error, _req, res, next) => {
    if (!res.headersSent && upstreamGaveUp(error)) answerUpstreamGaveUp(res);
    else next(error);
  };
}

/** The inbound request being handled under `retryLayer`, if any. */
export function inboundRequest(): InboundRequest | undefined {
  const inbound = storage.getStore();
  if (!inbound) return undefined;
  return {
    // (NaN is falsy; an end on `performance.now()` is past its origin.)
    deadlineLeftMs: inbound.deadlineAt ? leftOf(inbound) - inbound.marginMs : undefined,
    attempt: inbound.attempt,
    signal: inbound.signal,
  };
}

export const retryLayer: typeof createRetryLayer & { errorHandler: typeof errorHandler } =
  Object.assign(createRetryLayer, { errorHandler });
