import type { InternalAxiosRequestConfig } from 'axios';
import { type ClientSettings, type ResolvedOptions, resolveRequestOptions } from './options';

/** A call's settings, resolved once per call from the client's and its own `retry` field. */
export interface CallSettings {
  /** The call's retry options, or `false` when it turned retries off (`retry: false`). */
  readonly retry: ResolvedOptions | false;
  /**
   * What the call follows even with retries off (the statuses that count as failures, the key
   * header, the longest wait at the gate): its retry options, else the client's.
   */
  readonly settings: ResolvedOptions;
}

/** Resolves a call's settings; throws a TypeError naming a bad per-request option. */
export function settingsOf(
  client: ClientSettings,
  config: InternalAxiosRequestConfig,
): CallSettings {
  const retry = resolveRequestOptions(client, config.retry);
  return { retry, settings: retry || client.options };
}
