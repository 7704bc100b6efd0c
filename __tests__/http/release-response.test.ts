import { Readable } from 'node:stream';
import type { AxiosError } from 'axios';
import { boundAttempt, settleAttempt } from '../../src/axios/attempt-deadline';
import { releaseResponse } from '../../src/http/release-response';

const failed = (responseType: string, data: unknown) =>
  ({ config: { responseType }, response: { data } }) as unknown as AxiosError;

describe('releaseResponse', () => {
  it('destroys the Node stream of a failed responseType: stream attempt', () => {
    const body = Readable.from(['unread']);
    releaseResponse(failed('stream', body));
    expect(body.destroyed).toBe(true);
  });

  it('cancels a web ReadableStream body', async () => {
    const canceled = jest.fn();
    const body = new ReadableStream({ cancel: canceled });
    releaseResponse(failed('stream', body));
    await Promise.resolve();
    expect(canceled).toHaveBeenCalled();
  });

  it('leaves a body alone unless the call asked for a stream', () => {
    const body = Readable.from(['unread']);
    releaseResponse(failed('json', body));
    expect(body.destroyed).toBe(false);
    body.destroy();
    expect(() => releaseResponse(failed('stream', 'text'))).not.toThrow();
  });
});

describe('boundAttempt', () => {
  it("does nothing to an attempt whose caller's signal has already aborted", () => {
    const controller = new AbortController();
    controller.abort();
    const config = { signal: controller.signal } as never;
    boundAttempt(config, 1000);
    expect((config as { signal: unknown }).signal).toBe(controller.signal);
    expect(settleAttempt(config)).toBeUndefined();
    expect(settleAttempt(undefined)).toBeUndefined();
  });

  it("stops listening to the caller's signal once the attempt settles", () => {
    const controller = new AbortController();
    const removed = jest.spyOn(controller.signal, 'removeEventListener');
    const config = { signal: controller.signal } as { signal: AbortSignal };
    boundAttempt(config as never, 60_000);
    const ours = config.signal;
    expect(ours).not.toBe(controller.signal);
    expect(settleAttempt(config as never)).toBeUndefined();
    expect(removed).toHaveBeenCalledWith('abort', expect.any(Function));
    expect(config.signal).toBe(controller.signal);
    controller.abort();
    expect(ours.aborted).toBe(false);
  });
});
