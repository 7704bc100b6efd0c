import {
  type AxiosAdapter,
  AxiosError,
  type AxiosResponse,
  CanceledError,
  type InternalAxiosRequestConfig,
} from 'axios';
import { virtualNow } from './clock';
import type { ServerModel, ServerOutcome } from './server-model';
import type { TrafficLog } from './traffic-log';

/**
 * An axios adapter that sends each request to `server` and settles as a real adapter would:
 * a status outside `validateStatus` rejects with axios's own ERR_BAD_RESPONSE / ERR_BAD_REQUEST,
 * connection failures reject with ECONNREFUSED / ECONNRESET and no response, `timeout` and
 * `signal` are honoured. The model is told the request's path. Every request is recorded in `log`
 * at its arrival time, with its path.
 */
export function simulatedAdapter(server: ServerModel, log: TrafficLog): AxiosAdapter {
  return (config) =>
    new Promise<AxiosResponse>((resolve, reject) => {
      const request = { simulated: true, url: config.url };
      if (config.signal?.aborted) {
        reject(new CanceledError(undefined, config, request));
        return;
      }
      const arrivedAtMs = virtualNow();
      const path = pathOf(config.url);
      let settled = false;
      const cleanups: Array<() => void> = [];
      const finish = (outcome: ServerOutcome | 'timeout' | 'canceled'): void => {
        if (settled) return;
        settled = true;
        for (const cleanup of cleanups) cleanup();
        log.record({
          atMs: arrivedAtMs,
          outcome: outcomeLabel(outcome),
          path,
          ...callIdOf(config),
        });
        settle(outcome, config, request, resolve, reject);
      };

      if (config.timeout) {
        const timer = setTimeout(() => finish('timeout'), config.timeout);
        cleanups.push(() => clearTimeout(timer));
      }
      const signal = config.signal as AbortSignal | undefined;
      if (signal?.addEventListener) {
        const onAbort = (): void => finish('canceled');
        signal.addEventListener('abort', onAbort, { once: true });
        cleanups.push(() => signal.removeEventListener('abort', onAbort));
      }
      server.handle({ path, ...callIdOf(config) }).then(finish);
    });
}

/** The request path, without the query or the fragment ('/' when there is none). */
function pathOf(url: string | undefined): string {
  return new URL(url ?? '/', 'http://simulated.invalid').pathname;
}

/** The bench stamps each call's requests with `x-bench-call: <n>`; retries keep the header. */
export const CALL_ID_HEADER = 'x-bench-call';

function callIdOf(config: InternalAxiosRequestConfig): { callId?: number } {
  const headers = config.headers as { get?: (name: string) => unknown } | undefined;
  const value = Number(headers?.get?.(CALL_ID_HEADER));
  return Number.isInteger(value) ? { callId: value } : {};
}

function outcomeLabel(outcome: ServerOutcome | 'timeout' | 'canceled') {
  if (outcome === 'timeout') return 'ECONNABORTED' as const;
  if (outcome === 'canceled') return 'ERR_CANCELED' as const;
  if (outcome.kind === 'refused') return 'ECONNREFUSED' as const;
  if (outcome.kind === 'reset') return 'ECONNRESET' as const;
  return outcome.status;
}

function settle(
  outcome: ServerOutcome | 'timeout' | 'canceled',
  config: InternalAxiosRequestConfig,
  request: unknown,
  resolve: (response: AxiosResponse) => void,
  reject: (error: unknown) => void,
): void {
  if (outcome === 'timeout') {
    const code = config.transitional?.clarifyTimeoutError ? 'ETIMEDOUT' : 'ECONNABORTED';
    reject(new AxiosError(`timeout of ${config.timeout}ms exceeded`, code, config, request));
    return;
  }
  if (outcome === 'canceled') {
    reject(new CanceledError(undefined, config, request));
    return;
  }
  if (outcome.kind === 'refused') {
    reject(new AxiosError('connect ECONNREFUSED 127.0.0.1:80', 'ECONNREFUSED', config, request));
    return;
  }
  if (outcome.kind === 'reset') {
    reject(new AxiosError('socket hang up', 'ECONNRESET', config, request));
    return;
  }
  const response: AxiosResponse = {
    data: outcome.status < 400 ? { ok: true } : { error: outcome.status },
    status: outcome.status,
    statusText: String(outcome.status),
    headers: { ...outcome.headers },
    config,
    request,
  };
  const validateStatus = config.validateStatus;
  if (!validateStatus || validateStatus(outcome.status)) {
    resolve(response);
    return;
  }
  const code =
    outcome.status >= 400 && outcome.status < 500 ? 'ERR_BAD_REQUEST' : 'ERR_BAD_RESPONSE';
  reject(
    new AxiosError(
      `Request failed with status code ${outcome.status}`,
      code,
      config,
      request,
      response,
    ),
  );
}
