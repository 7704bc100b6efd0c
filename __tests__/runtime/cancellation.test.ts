// How a call's cancellation is heard: its `signal` (AbortController) or its `cancelToken`.
import axios, { CanceledError, type InternalAxiosRequestConfig } from 'axios';
import { cancellationError, cancellationOf } from '../../src/runtime/cancellation';

const config = (fields: object) => ({ headers: {}, ...fields }) as InternalAxiosRequestConfig;

describe('cancellationOf', () => {
  it('is undefined with neither a signal nor a token that can be subscribed to', () => {
    expect(cancellationOf(config({}))).toBeUndefined();
    expect(cancellationOf(config({ cancelToken: {} }))).toBeUndefined();
  });

  it('hears a signal abort, and no longer once unsubscribed', () => {
    const controller = new AbortController();
    const heard = jest.fn();
    cancellationOf(config({ signal: controller.signal }))?.subscribe(heard);
    controller.abort();
    expect(heard).toHaveBeenCalledTimes(1);

    const later = new AbortController();
    const again = jest.fn();
    cancellationOf(config({ signal: later.signal }))?.subscribe(again)();
    later.abort();
    expect(again).not.toHaveBeenCalled();
  });

  /** axios calls a token's listeners once its promise settles. */
  const settled = async (token: { promise: Promise<unknown> }) => {
    await token.promise;
    await Promise.resolve();
  };

  it('hears a cancel token, and unsubscribes from it', async () => {
    const source = axios.CancelToken.source();
    const heard = jest.fn();
    const unsubscribe = cancellationOf(config({ cancelToken: source.token }))?.subscribe(heard);
    unsubscribe?.();
    source.cancel('gone');
    await settled(source.token);
    expect(heard).not.toHaveBeenCalled();

    const second = axios.CancelToken.source();
    cancellationOf(config({ cancelToken: second.token }))?.subscribe(heard);
    second.cancel('gone');
    await settled(second.token);
    expect(heard).toHaveBeenCalledTimes(1);
  });

  it('fires at once for a signal already aborted, or a token already canceled', () => {
    const controller = new AbortController();
    controller.abort();
    const source = axios.CancelToken.source();
    source.cancel('before');
    for (const fields of [{ signal: controller.signal }, { cancelToken: source.token }]) {
      const heard = jest.fn();
      cancellationOf(config(fields))?.subscribe(heard);
      expect(heard).toHaveBeenCalledTimes(1);
    }
  });

  it('hears a signal and a token given together, either one', async () => {
    const controller = new AbortController();
    const source = axios.CancelToken.source();
    const heard = jest.fn();
    const both = config({ signal: controller.signal, cancelToken: source.token });
    cancellationOf(both)?.subscribe(heard);
    source.cancel('token');
    await settled(source.token);
    expect(heard).toHaveBeenCalledTimes(1);
  });

  it('takes a token that lacks subscribe or unsubscribe beside a signal', () => {
    const controller = new AbortController();
    const partial = { subscribe: () => undefined };
    for (const cancelToken of [{}, partial]) {
      const unsubscribe = cancellationOf(
        config({ signal: controller.signal, cancelToken }),
      )?.subscribe(() => undefined);
      expect(() => unsubscribe?.()).not.toThrow();
    }
  });
});

describe('cancellationError', () => {
  it("is the token's reason when it has one", () => {
    const source = axios.CancelToken.source();
    source.cancel('why');
    expect(cancellationError(config({ cancelToken: source.token }))).toBe(source.token.reason);
  });

  it("else a CanceledError with the request's config, as axios rejects with", () => {
    const given = config({ signal: new AbortController().signal });
    const error = cancellationError(given) as Error & { config?: unknown };
    expect(error).toBeInstanceOf(CanceledError);
    expect(error.config).toBe(given);
    expect(axios.isCancel(error)).toBe(true);
  });
});
