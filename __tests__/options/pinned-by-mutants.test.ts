// Behaviours of src/options that no test pinned until its mutation run found them
// (docs/mutation.md): each test below fails with the mutant named in its title.
import { runInNewContext } from 'node:vm';
import axios, { type InternalAxiosRequestConfig } from 'axios';
import { attachRetry } from '../../src';
import { settingsOf } from '../../src/options/call-settings';
import {
  DEFAULT_CIRCUIT_BREAKER,
  DEFAULT_OPTIONS,
  resolveClientOptions,
} from '../../src/options/options';
import { assertAttachable, notAnErrorProblem } from '../../src/options/usage-errors';

const store = () => ({
  update: () => Promise.resolve(),
  watch: () => () => undefined,
  lease: () => Promise.resolve(),
  clients: () => Promise.resolve(1),
});

describe('the `propagate` and `store` rules (their values were never checked)', () => {
  it.each([true, false])('accepts propagate: %s', (propagate) => {
    expect(resolveClientOptions({ propagate }).options.propagate).toBe(propagate);
  });

  it.each([1, 'yes', null, {}])('rejects propagate: %p, naming the option', (propagate) => {
    expect(() => resolveClientOptions({ propagate } as never)).toThrow(
      /^axios-safe-retry: `propagate` must be a boolean; got /,
    );
  });

  it('accepts a store with its four methods, and hands it on as given', () => {
    const given = store();
    expect(resolveClientOptions({ store: given as never }).store).toBe(given);
  });

  it.each(['update', 'watch', 'lease', 'clients'])('rejects a store without `%s`', (method) => {
    const given: Record<string, unknown> = store();
    delete given[method];
    expect(() => resolveClientOptions({ store: given as never })).toThrow(
      /^axios-safe-retry: `store` must be a store; got an object\.$/,
    );
  });

  it('rejects a store whose method is not a function, and a store that is not an object', () => {
    expect(() => resolveClientOptions({ store: { ...store(), lease: 1 } as never })).toThrow(
      /`store` must be a store/,
    );
    expect(() => resolveClientOptions({ store: [] as never })).toThrow(/`store` must be a store/);
  });
});

describe('defaults: an option without one has no key at all (not a key set to undefined)', () => {
  it('DEFAULT_OPTIONS has keys only for the defaulted options', () => {
    expect(Object.keys(DEFAULT_OPTIONS).sort()).toEqual(
      [
        'baseDelayMs',
        'idempotencyKey',
        'maxDelayMs',
        'maxRetryAfterMs',
        'methods',
        'random',
        'retries',
        'statusCodes',
      ].sort(),
    );
  });

  it('a resolved breaker has no onStateChange key unless one was given', () => {
    const breaker = resolveClientOptions().circuitBreaker;
    expect(breaker && Object.keys(breaker)).not.toContain('onStateChange');
    expect(Object.keys(DEFAULT_CIRCUIT_BREAKER)).not.toContain('onStateChange');
  });
});

describe('settingsOf: what a call follows', () => {
  const client = resolveClientOptions({ statusCodes: [503] });
  const config = (retry: unknown) => ({ headers: {}, retry }) as InternalAxiosRequestConfig;

  it("is the call's own options when it has some", () => {
    const { retry, settings } = settingsOf(client, config({ statusCodes: [500] }));
    expect(settings).toBe(retry);
    expect(settings.statusCodes).toEqual([500]);
  });

  it("is the client's options when the call turned retries off", () => {
    const { retry, settings } = settingsOf(client, config(false));
    expect(retry).toBe(false);
    expect(settings).toBe(client.options);
  });
});

describe('notAnErrorProblem', () => {
  it('takes an error of another realm for an error', () => {
    const foreign = runInNewContext('new Error("from a vm")') as unknown;
    expect(foreign instanceof Error).toBe(false);
    expect(notAnErrorProblem(foreign)).toBeUndefined();
  });

  it('names null, rather than failing to read its status', () => {
    expect(notAnErrorProblem(null)?.message).toMatch(/got null, not an error/);
  });

  it('keeps the value as a writable cause, as a native error does', () => {
    const problem = notAnErrorProblem({ status: 200 }) as TypeError;
    expect(problem.message).toMatch(/got a 200 response, not an error/);
    expect(Object.getOwnPropertyDescriptor(problem, 'cause')).toMatchObject({
      value: { status: 200 },
      writable: true,
      enumerable: false,
    });
  });
});

describe('assertAttachable', () => {
  it('attaches beside response interceptors of other libraries (with or without a rejected handler)', () => {
    const api = axios.create();
    api.interceptors.response.use((response) => response);
    api.interceptors.response.use(undefined, (error) => Promise.reject(error));
    expect(() => attachRetry(api)).not.toThrow();
    expect(() => attachRetry(api)).toThrow(/already attached/);
  });

  it('takes an interceptor manager that cannot list its handlers', () => {
    expect(() => assertAttachable({ interceptors: { response: { use() {} } } })).not.toThrow();
  });
});
