/// <reference types="node" />
import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { InternalAxiosRequestConfig } from 'axios';
import {
  ATTEMPT_HEADER,
  CONTEXT_KEY,
  DEADLINE_HEADER,
  type FollowInbound,
} from '../contract/call-context';
import type { RequestRetryOptions } from '../contract/types';
import { isObject, optionError, ruled } from '../options/rules';
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
  /** `performance.now()` at arrival: a monotonic clock. */
  readonly arrivedAt: number;
  readonly deadlineMs: number | undefined;
  readonly attempt: number | undefined;
  readonly signal: AbortSignal;
  readonly marginMs: number;
}

type Next = (error?: unknown) => void;
/** A connect-style middleware: express, connect, or plain node:http (call it before the handler). */
export type RetryLayerMiddleware = (req: IncomingMessage, res: ServerResponse, next: Next) => void;
export type RetryLayerErrorHandler = (
  error: unknown,
  req: IncomingMessage,
  res: ServerResponse,
  next: Next,
) => void;

const storage = new AsyncLocalStorage<Inbound>();

function leftOf(inbound: Inbound): number | undefined {
  if (inbound.deadlineMs === undefined) return undefined;
  return inbound.deadlineMs - (performance.now() - inbound.arrivedAt);
}

function headerOf(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name.toLowerCase()];
  return typeof value === 'string' ? value : undefined;
}

type AnySignal = (signals: AbortSignal[]) => AbortSignal;

/** The hook the main bundle calls on each call's first attempt (see call-context.ts). */
function follow(previous: FollowInbound | undefined): (...args: Parameters<FollowInbound>) => void {
  return (config: InternalAxiosRequestConfig, { options: clientOptions }) => {
    const inbound = storage.getStore();
    if (!inbound) {
      previous?.(config, { options: clientOptions });
      return;
    }
    const retry = config.retry as RequestRetryOptions | false | undefined;
    // `retry: false`, or a `retry` that is not an object (its resolution rejects it): untouched.
    if (retry === false || (retry !== undefined && (typeof retry !== 'object' || retry === null))) {
      return;
    }
    if ((retry?.propagate ?? clientOptions.propagate) === false) return;
    const left = leftOf(inbound);
    const usable = left === undefined ? undefined : Math.floor(left - inbound.marginMs);
    // The caller has gone, or its deadline leaves no time: the call starts no attempt.
    let signal: AbortSignal =
      usable !== undefined && usable < 1 ? AbortSignal.abort() : inbound.signal;
    const own = config.signal as AbortSignal | undefined;
    const any = (AbortSignal as unknown as { any?: AnySignal }).any;
    if (own && own !== signal) signal = any ? any([own, signal]) : own;
    config.signal = signal;
    const ownDeadline = retry?.deadlineMs ?? clientOptions.deadlineMs;
    const inherit =
      usable !== undefined && usable >= 1 && !(ownDeadline !== undefined && ownDeadline <= usable);
    config.retry = { ...retry, propagate: true, ...(inherit ? { deadlineMs: usable } : {}) };
  };
}

let installed = false;

/** Installs the hook once per copy of this module, after any other copy's (which it chains to). */
function install(): void {
  if (installed) return;
  installed = true;
  const registry = globalThis as Record<symbol, FollowInbound | undefined>;
  registry[CONTEXT_KEY] = follow(registry[CONTEXT_KEY]);
}

/**
 * A connect-style middleware `(req, res, next)` that keeps the inbound request's context (its
 * deadline, its attempt number, whether its caller has gone) in `AsyncLocalStorage`, for every
 * axios client with `attachRetry` that makes a call while the request is handled: such a call
 * takes what is left of the inbound deadline, less `marginMs`, when it has no shorter deadline of
 * its own; it is aborted when the inbound caller goes; and its attempts carry `Retry-Attempt` and
 * `Request-Deadline-Ms`. Mount it before the routes (and after body parsers, which lose the
 * context). `retryLayer.errorHandler()` answers the caller "don't retry" when a call gave up on
 * overload.
 */
function createRetryLayer(options: RetryLayerOptions = {}): RetryLayerMiddleware {
  const given = ruled('retryLayer', [isObject, 'an object'], options) as RetryLayerOptions;
  for (const name in given) {
    if (!(name in LAYER_SCHEMA)) throw optionError(`unknown option \`retryLayer.${name}\``);
  }
  const [maxDeadlineMs, marginMs] = (['maxDeadlineMs', 'marginMs'] as const).map((name) => {
    const value = given[name];
    return value === undefined
      ? LAYER_SCHEMA[name][2]
      : ruled(`retryLayer.${name}`, LAYER_SCHEMA[name], value);
  }) as [number, number];
  install();
  return (req, res, next) => {
    const controller = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    const inbound: Inbound = {
      arrivedAt: performance.now(),
      deadlineMs: inboundDeadlineMs(
        headerOf(req, DEADLINE_HEADER),
        headerOf(req, 'grpc-timeout'),
        maxDeadlineMs,
      ),
      attempt: inboundAttempt(headerOf(req, ATTEMPT_HEADER)),
      signal: controller.signal,
      marginMs,
    };
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
  const left = inbound && leftOf(inbound);
  return gaveUpOnOverload(error, left !== undefined && left <= 2 * (inbound?.marginMs ?? 0));
}

/**
 * Answers "don't retry": `503` with `Stripe-Should-Retry: false`, which axios-safe-retry's client
 * honours (it stops with `upstream-gave-up`), and so do Stripe's own clients.
 */
export function answerUpstreamGaveUp(res: ServerResponse): void {
  res.statusCode = 503;
  res.setHeader(SHOULD_RETRY_HEADER, 'false');
  res.setHeader('Content-Type', 'application/json');
  res.end(JSON.stringify({ error: 'upstream gave up' }));
}

/**
 * An express error handler `(error, req, res, next)`: answers "don't retry" when the handler's
 * error is an outgoing call that gave up on overload (`upstreamGaveUp`), else passes it on.
 */
function errorHandler(): RetryLayerErrorHandler {
  return (error, _req, res, next) => {
    if (!res.headersSent && upstreamGaveUp(error)) answerUpstreamGaveUp(res);
    else next(error);
  };
}

/** The inbound request being handled under `retryLayer`, if any. */
export function inboundRequest(): InboundRequest | undefined {
  const inbound = storage.getStore();
  if (!inbound) return undefined;
  const left = leftOf(inbound);
  return {
    deadlineLeftMs: left === undefined ? undefined : left - inbound.marginMs,
    attempt: inbound.attempt,
    signal: inbound.signal,
  };
}

export const retryLayer: typeof createRetryLayer & { errorHandler: typeof errorHandler } =
  Object.assign(createRetryLayer, { errorHandler });
