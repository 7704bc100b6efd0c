import {
  Axios,
  type AxiosInstance,
  type AxiosRequestConfig,
  type AxiosResponse,
  type InternalAxiosRequestConfig,
} from 'axios';

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

interface InspectableInterceptors {
  forEach?(visit: (handler: InterceptorHandler) => void): void;
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
 * the time of the attempt (a refreshed token reaches the retry), but no response interceptors:
 * those then see the call's final outcome once, from the interceptor that retries.
 *
 * The failed attempt's config already holds the instance's defaults, merged; the bare `Axios`
 * keeps them too (axios-mock-adapter, for one, deletes `adapter` from the config it handles) but
 * for the default headers, so a header the first attempt left out is not added back.
 */
export function reissueThrough(instance?: AxiosInstance): Reissue {
  return (config) => {
    const bare = new Axios({ ...instance?.defaults, headers: {} } as AxiosRequestConfig);
    const requestInterceptors = instance?.interceptors.request as
      | InspectableInterceptors
      | undefined;
    requestInterceptors?.forEach?.((handler) => {
      bare.interceptors.request.use(handler.fulfilled, handler.rejected, {
        synchronous: handler.synchronous ?? false,
        ...(handler.runWhen ? { runWhen: handler.runWhen } : {}),
      });
    });
    // The body was already transformed (serialised) by the first attempt: send it as it is.
    // Headers go as a plain object: axios before 1.2 drops an AxiosHeaders met in a config merge.
    return bare.request({
      ...config,
      headers: plainHeaders(config.headers),
      transformRequest: [],
    } as AxiosRequestConfig);
  };
}
