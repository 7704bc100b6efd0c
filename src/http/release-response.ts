import type { AxiosError } from 'axios';

interface StreamLike {
  destroy?: () => void;
  cancel?: () => Promise<void>;
}

/**
 * Frees the connection of a failed attempt before the call is sent again: a `responseType:
 * 'stream'` body that nobody reads holds its socket, and with a bounded agent (`maxSockets`) the
 * retry would wait for it forever. A Node stream is destroyed, a web `ReadableStream` canceled.
 */
export function releaseResponse(failure: AxiosError): void {
  if (failure.config?.responseType !== 'stream') return;
  const body = failure.response?.data as StreamLike | null | undefined;
  if (typeof body?.destroy === 'function') body.destroy();
  else if (typeof body?.cancel === 'function') body.cancel().catch(() => {});
}
