import type {
  AxiosInstance,
  AxiosInterceptorOptions,
  AxiosRequestConfig,
  AxiosResponse,
  InternalAxiosRequestConfig,
} from 'axios';
import { Axios } from '../contract/axios';

/** Sends one more attempt of a call and settles with its outcome. */
export type Reissue = (config: InternalAxiosRequestConfig) => Promise<AxiosResponse>;

interface InterceptorHandler {
  fulfilled?: (
    value: InternalAxiosRequestConfig,
  ) => InternalAxiosRequestConfig | Promise<InternalAxiosRequestConfig>;
  rejected?: (error: unknown) => unknown;
  synchronous?: boolean;
  runWhen?: ((config: InternalAxiosRequestConfig) => boolean) | null;
}

interface ResponseInterceptorHandler {
  fulfilled?: ((value: AxiosResponse) => AxiosResponse | Promise<AxiosResponse>) | null;
  rejected?: ((error: unknown) => unknown) | null;
}

interface InspectableInterceptors<Handler> {
  forEach?(visit: (handler: Handler) => void): void;
}

/**
 * The instance's response interceptors registered before `own` (the retrying handler), in order;
 * none if `own` is not registered (any more). axios's `forEach` skips ejected handlers.
 */
function responseInterceptorsBefore(
  instance: AxiosInstance | undefined,
  own: unknown,
): ResponseInterceptorHandler[] {
  const before: ResponseInterceptorHandler[] = [];
  let found = false;
  const interceptors = instance?.interceptors.response as
    | InspectableInterceptors<ResponseInterceptorHandler>
    | undefined;
  interceptors?.forEach?.((handler) => {
    if (handler.rejected === own) found = true;
    if (!found) before.push(handler);
  });
  return found ? before : [];
}

/**
 * The attempt's headers as a plain object, those set to `false` included: `toJSON()` drops them,
 * and a header the caller suppressed that way (axios's own `User-Agent` or `Accept-Encoding`)
 * would then be added back by the adapter on the retry.
 */
function plainHeaders(headers: unknown): unknown {
  const plain = (headers as { toJSON?: () => Record<string, unknown> }).toJSON?.();
  if (!plain) return headers;
  for (const [name, value] of Object.entries(headers as object)) {
    if (value === false) plain[name] = false;
  }
  return plain;
}

/**
 * Re-sending through the instance itself (as other retry plugins do) would run the instance's
 * response interceptors once per attempt, and once more as the outcome unwinds. Instead each
 * attempt goes through a bare `Axios` with the instance's request interceptors, as they are at
 * the time of the attempt (a refreshed token reaches the retry), and the response interceptors
 * registered before the retrying handler (`ownHandler`), which see every attempt as they see
 * the first: a retried success reaches the caller shaped as a first-try success (by a
 * `(r) => r.data`, say). Those registered after it see the call's final outcome once.
 *
 * The failed attempt's config already holds the instance's defaults, merged; the bare `Axios`
 * keeps them too (axios-mock-adapter, for one, deletes `adapter` from the config it handles) but
 * for the default headers, so a header the first attempt left out is not added back.
 */
export function reissueThrough(instance?: AxiosInstance, ownHandler?: () => unknown): Reissue {
  return (config) => {
    const bare = new Axios({ ...instance?.defaults, headers: {} } as AxiosRequestConfig);
    const requestInterceptors = instance?.interceptors.request as
      | InspectableInterceptors<InterceptorHandler>
      | undefined;
    // The handler holds its own `synchronous` and `runWhen`: it is its own options.
    requestInterceptors?.forEach?.((handler) => {
      bare.interceptors.request.use(
        handler.fulfilled,
        handler.rejected,
        handler as AxiosInterceptorOptions,
      );
    });
    for (const handler of responseInterceptorsBefore(instance, ownHandler?.())) {
      bare.interceptors.response.use(handler.fulfilled, handler.rejected);
    }
    // The body was already transformed (serialised) by the first attempt: send it as it is.
    // Headers go as a plain object: axios before 1.2 drops an AxiosHeaders met in a config merge.
    return bare.request({
      ...config,
      headers: plainHeaders(config.headers),
      transformRequest: [],
    } as AxiosRequestConfig);
  };
}
