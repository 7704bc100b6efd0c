import type { InternalAxiosRequestConfig } from 'axios';

/**
 * The coupling between the main bundle and `axios-safe-retry/server`, which alone uses
 * `node:async_hooks`: the server entry installs a `FollowInbound` under this key, and each call
 * hands it its config. `Symbol.for`, so that two copies of the library (its CommonJS and its ES
 * module build, say) share the one registry.
 */
export const CONTEXT_KEY = Symbol.for('axios-safe-retry.context');

/** The request header that carries an attempt's number: 1 on the first attempt. */
export const ATTEMPT_HEADER = 'retry-attempt';
/** The request header that carries how long, in milliseconds, the caller waits for this attempt. */
export const DEADLINE_HEADER = 'request-deadline-ms';

/** What the first-attempt call of `FollowInbound` is given of the client. */
export interface FollowClient {
  readonly options: { readonly deadlineMs?: number | undefined; readonly propagate?: boolean };
}

/**
 * Installed by the server entry, and called by the main bundle twice in a call's life:
 * - on its first attempt (`config.retryState` not yet set), before its options are resolved,
 *   with the client's settings (a `FollowClient`). While an inbound request is being handled (and
 *   unless the call says `propagate: false`), it makes the call follow that request: the call
 *   takes the inbound caller's signal when it has none of its own (so it is aborted when that
 *   caller goes), the inbound deadline, less a margin, when it has no shorter one (written to
 *   `config.retry`, so every attempt sees it), and `propagate: true` there too, so that the
 *   interceptor stamps the headers on every attempt of the call (`clampToDeadline`);
 * - when the call stops (`config.retryState` holds why), with its final error, in the call's own
 *   async context: the layer remembers that a call of the request gave up on overload, and marks
 *   the request's 5xx answer "don't retry".
 */
export type FollowInbound = (
  config: InternalAxiosRequestConfig,
  clientOrError: FollowClient | unknown,
) => void;
