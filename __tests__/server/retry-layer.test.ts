import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import axios, { type AxiosRequestConfig, type InternalAxiosRequestConfig } from 'axios';
import MockAdapter from 'axios-mock-adapter';
import { attachRetry, type RetryOptions } from '../../src';
import { decide } from '../../src/retry/policy';
import {
  answerUpstreamGaveUp,
  inboundRequest,
  retryLayer,
  SHOULD_RETRY_HEADER,
  upstreamGaveUp,
} from '../../src/server';
import { options, outcome, state } from '../helpers/decide-fixtures';
import { failureOf } from '../helpers/failure';

// Issue 16, without a network: the client side (server signals in decide, the propagated
// headers) and the server side (the hook that makes a call follow the inbound request).

describe('decide honours what the server said', () => {
  it('stops with upstream-gave-up on "don\'t retry", whatever shouldRetry says, before any limit', () => {
    const said = outcome({ advice: false, verdict: () => true });
    expect(decide(said, state(), options({ shouldRetry: () => true }))).toEqual({
      retry: false,
      reason: 'upstream-gave-up',
    });
    expect(decide(said, state({ retryCount: 3 }), options())).toEqual({
      retry: false,
      reason: 'upstream-gave-up',
    });
  });

  it('retries what the default rule would not when the server vouches for it (Stripe-Should-Retry: true)', () => {
    const conflict = outcome({ status: 409 });
    expect(decide(conflict, state(), options()).retry).toBe(false);
    expect(decide({ ...conflict, advice: true }, state(), options()).retry).toBe(true);
    const post = outcome({ method: 'POST' });
    expect(decide(post, state(), options()).retry).toBe(false);
    expect(decide({ ...post, advice: true }, state(), options()).retry).toBe(true);
    // The caller's own shouldRetry still has the last word over a "yes".
    expect(decide({ ...conflict, advice: true, verdict: () => false }, state(), options())).toEqual(
      { retry: false, reason: 'not-retryable' },
    );
  });

  it("waits a pushback, plus the first retry's spread; with a Retry-After too, the later of the two (never sooner than either asked)", () => {
    const decide700 = (serverWaitMs?: number) =>
      decide(outcome({ advice: 700, serverWaitMs }), state({ retryCount: 2 }), options());
    // 700 ms, and half (random 0.5) of the first retry's ceiling, 100 ms.
    expect(decide700()).toEqual({ retry: true, delayMs: 750, finalAttempt: false });
    expect(decide700(300)).toEqual({ retry: true, delayMs: 750, finalAttempt: false });
    expect(decide700(30_000)).toEqual({ retry: true, delayMs: 30_050, finalAttempt: false });
  });

  it('does not wait a pushback longer than maxRetryAfterMs, nor one past the deadline', () => {
    expect(decide(outcome({ advice: 5000 }), state(), options({ maxRetryAfterMs: 1000 }))).toEqual({
      retry: false,
      reason: 'retry-after-too-long',
    });
    expect(decide(outcome({ advice: 5000 }), state(), options({ deadlineMs: 2000 }))).toEqual({
      retry: false,
      reason: 'deadline',
    });
  });
});

/** A client on a mock adapter; records each attempt's request headers. */
function mockClient(clientOptions: RetryOptions = {}) {
  const client = axios.create({ baseURL: 'http://api.test' });
  const mock = new MockAdapter(client);
  const sent: Record<string, unknown>[] = [];
  const record = (config: AxiosRequestConfig) => {
    sent.push({ ...(config.headers as object) });
  };
  attachRetry(client, { baseDelayMs: 1, random: () => 0.5, ...clientOptions });
  return { client, mock, sent, record };
}

describe('the client honours server signals (real timers, 1 ms backoff)', () => {
  it('makes one attempt when a 503 says Stripe-Should-Retry: false', async () => {
    const { client, mock, sent, record } = mockClient();
    mock.onGet('/x').reply((config) => {
      record(config);
      return [503, {}, { 'Stripe-Should-Retry': 'false' }];
    });
    const error = await failureOf(client.get('/x'));
    expect(sent).toHaveLength(1);
    expect(error.config?.retryState?.stopReason).toBe('upstream-gave-up');
  });

  it('makes one attempt on a negative grpc-retry-pushback-ms, and waits a positive one', async () => {
    const { client, mock, sent, record } = mockClient();
    mock.onGet('/negative').reply((config) => {
      record(config);
      return [503, {}, { 'grpc-retry-pushback-ms': '-1' }];
    });
    expect((await failureOf(client.get('/negative'))).config?.retryState?.stopReason).toBe(
      'upstream-gave-up',
    );
    expect(sent).toHaveLength(1);

    mock.onGet('/later').replyOnce(503, {}, { 'grpc-retry-pushback-ms': '40' });
    mock.onGet('/later').replyOnce(200, 'ok');
    const response = await client.get('/later');
    expect(response.config.retryState?.delays[0]).toBeGreaterThanOrEqual(40);
  });

  it('still retries a plain 503 (no signal) as before', async () => {
    const { client, mock } = mockClient();
    mock.onGet('/x').replyOnce(503).onGet('/x').replyOnce(200, 'ok');
    expect((await client.get('/x')).config.retryState?.retryCount).toBe(1);
  });
});

describe('the propagated headers', () => {
  it('are not sent by default in a browser: a page gets no preflight it did not ask for', async () => {
    const { client, mock, sent, record } = mockClient({ deadlineMs: 5000 });
    mock.onGet('/x').reply((config) => {
      record(config);
      return [200, 'ok'];
    });
    // What a page sees: no Node (a bundler's `process` shim has no `versions.node`).
    const node = Object.getOwnPropertyDescriptor(process.versions, 'node') as PropertyDescriptor;
    Object.defineProperty(process.versions, 'node', { value: undefined, configurable: true });
    try {
      await client.get('/x');
    } finally {
      Object.defineProperty(process.versions, 'node', node);
    }
    expect(sent[0]).not.toHaveProperty('retry-attempt');
    expect(sent[0]).not.toHaveProperty('request-deadline-ms');
  });

  it('are sent by default in Node: the top of a chain (a job, a gateway) sends its deadline down', async () => {
    const { client, mock, sent, record } = mockClient({ deadlineMs: 5000 });
    mock.onGet('/x').reply((config) => {
      record(config);
      return [200, 'ok'];
    });
    await client.get('/x');
    expect(sent[0]).toMatchObject({ 'retry-attempt': '1' });
    expect(Number(sent[0]!['request-deadline-ms'])).toBeLessThanOrEqual(5000);
    expect(Number(sent[0]!['request-deadline-ms'])).toBeGreaterThan(4500);
  });

  it('are not sent with propagate: false', async () => {
    const { client, mock, sent, record } = mockClient({ deadlineMs: 5000, propagate: false });
    mock.onGet('/x').reply((config) => {
      record(config);
      return [200, 'ok'];
    });
    await client.get('/x');
    expect(sent[0]).not.toHaveProperty('retry-attempt');
    expect(sent[0]).not.toHaveProperty('request-deadline-ms');
  });

  it('with propagate: true, every attempt carries its number and the time left of the deadline', async () => {
    const { client, mock, sent, record } = mockClient({ deadlineMs: 5000, propagate: true });
    let n = 0;
    mock.onGet('/x').reply((config) => {
      record(config);
      return n++ < 2 ? [503] : [200, 'ok'];
    });
    await client.get('/x');
    expect(sent.map((h) => h['retry-attempt'])).toEqual(['1', '2', '3']);
    const left = sent.map((h) => Number(h['request-deadline-ms']));
    expect(left[0]).toBeLessThanOrEqual(5000);
    expect(left[0]).toBeGreaterThan(4500);
    expect(left[2]).toBeLessThanOrEqual(left[0]!);
  });

  it('carry no deadline when the call has neither a deadline nor a timeout', async () => {
    const { client, mock, sent, record } = mockClient({ propagate: true });
    mock.onGet('/x').reply((config) => {
      record(config);
      return [200, 'ok'];
    });
    await client.get('/x');
    expect(sent[0]).toMatchObject({ 'retry-attempt': '1' });
    expect(sent[0]).not.toHaveProperty('request-deadline-ms');
  });

  it('rejects a propagate that is not a boolean', () => {
    expect(() => attachRetry(axios.create(), { propagate: 'yes' as unknown as boolean })).toThrow(
      '`propagate` must be a boolean; got "yes"',
    );
  });
});

// ---------------------------------------------------------------------------------------------
// The server side, driven with a fake request and response (no sockets).

class FakeResponse extends EventEmitter {
  writableFinished = false;
  headersSent = false;
  statusCode = 200;
  readonly headers: Record<string, string> = {};
  body = '';
  setHeader(name: string, value: string) {
    this.headers[name.toLowerCase()] = value;
  }
  hasHeader(name: string) {
    return name.toLowerCase() in this.headers;
  }
  writeHead(statusCode: number, headers: Record<string, string> = {}) {
    this.statusCode = statusCode;
    for (const [name, value] of Object.entries(headers)) this.setHeader(name, value);
    this.headersSent = true;
    return this;
  }
  end(body: string) {
    // As Node's: headers not yet written go out now, through writeHead.
    if (!this.headersSent) this.writeHead(this.statusCode);
    this.body = body;
    this.writableFinished = true;
  }
}

/** Runs `handle` under retryLayer for an inbound request with these headers. */
function underLayer<T>(
  inboundHeaders: Record<string, string>,
  handle: (res: FakeResponse) => Promise<T>,
  layerOptions?: Parameters<typeof retryLayer>[0],
): Promise<T> {
  const res = new FakeResponse();
  const req = { headers: inboundHeaders } as unknown as IncomingMessage;
  return new Promise<T>((resolve, reject) => {
    retryLayer(layerOptions)(req, res as unknown as ServerResponse, () => {
      handle(res).then(resolve, reject);
    });
  });
}

/** A client whose adapter records the config of each attempt and answers 200. */
function recordingClient(clientOptions?: RetryOptions) {
  const configs: InternalAxiosRequestConfig[] = [];
  const client = axios.create({
    adapter: async (config) => {
      configs.push(config);
      return { data: 'ok', status: 200, statusText: 'OK', headers: {}, config };
    },
  });
  attachRetry(client, clientOptions);
  return { client, configs };
}

describe('retryLayer: calls follow the inbound request', () => {
  it('take what is left of the inbound deadline, less the margin, and carry the headers', async () => {
    const { client, configs } = recordingClient();
    await underLayer({ 'request-deadline-ms': '1000', 'retry-attempt': '2' }, async () => {
      expect(inboundRequest()).toMatchObject({ attempt: 2 });
      await client.get('http://next.test/');
    });
    const [config] = configs;
    const retry = config!.retry as RetryOptions;
    expect(retry.deadlineMs).toBeLessThanOrEqual(950);
    expect(retry.deadlineMs).toBeGreaterThan(800);
    expect(config!.headers['retry-attempt']).toBe('1');
    expect(Number(config!.headers['request-deadline-ms'])).toBeLessThanOrEqual(950);
  });

  it('keep a shorter deadline of their own', async () => {
    const { client, configs } = recordingClient({ deadlineMs: 300 });
    await underLayer({ 'request-deadline-ms': '1000' }, () => client.get('http://next.test/'));
    expect((configs[0]!.retry as RetryOptions).deadlineMs).toBeUndefined();
    expect(Number(configs[0]!.headers['request-deadline-ms'])).toBeLessThanOrEqual(300);
  });

  it('cap an absurd inbound deadline at maxDeadlineMs, and ignore a malformed one', async () => {
    const { client, configs } = recordingClient();
    await underLayer({ 'request-deadline-ms': '86400000' }, () => client.get('http://next.test/'), {
      maxDeadlineMs: 2000,
    });
    expect((configs[0]!.retry as RetryOptions).deadlineMs).toBeLessThanOrEqual(1950);
    await underLayer({ 'request-deadline-ms': 'tomorrow' }, () => client.get('http://next.test/'));
    expect((configs[1]!.retry as RetryOptions).deadlineMs).toBeUndefined();
    // No deadline, but the call is still under the layer: it carries its attempt number.
    expect(configs[1]!.headers['retry-attempt']).toBe('1');
    expect(configs[1]!.headers['request-deadline-ms']).toBeUndefined();
  });

  it('are left alone with propagate: false or retry: false, and outside a request', async () => {
    const { client, configs } = recordingClient();
    await underLayer({ 'request-deadline-ms': '1000' }, async () => {
      await client.get('http://next.test/', { retry: { propagate: false } });
      await client.get('http://next.test/', { retry: false });
    });
    await client.get('http://next.test/', { retry: { propagate: false } });
    for (const config of configs) {
      expect(config.headers['retry-attempt']).toBeUndefined();
      expect(config.timeout).toBe(0);
    }
  });

  it('start no attempt once the inbound caller has gone', async () => {
    const { client, configs } = recordingClient();
    const error = await underLayer({}, async (res) => {
      res.emit('close'); // the connection closed before the answer
      return failureOf(client.get('http://next.test/'));
    });
    expect(error.code).toBe('ERR_CANCELED');
    // axios 1.1's CanceledError for a signal aborted before the request carries no config.
    if (error.config) expect(error.config.retryState?.stopReason).toBe('canceled');
    expect(configs).toHaveLength(0);
  });

  it('start no attempt when the inbound deadline leaves no time past the margin', async () => {
    const { client, configs } = recordingClient();
    const error = await underLayer({ 'request-deadline-ms': '20' }, () =>
      failureOf(client.get('http://next.test/')),
    );
    expect(error.code).toBe('ERR_CANCELED');
    expect(configs).toHaveLength(0);
  });

  it("are still aborted by the caller's own signal", async () => {
    const { client, configs } = recordingClient();
    const own = new AbortController();
    own.abort();
    const error = await underLayer({}, () =>
      failureOf(client.get('http://next.test/', { signal: own.signal })),
    );
    expect(error.code).toBe('ERR_CANCELED');
    expect(configs).toHaveLength(0);
  });
});

describe('retryLayer: answering "don\'t retry"', () => {
  const gaveUp = {
    config: { retryState: { stopReason: 'retries-exhausted' } },
    response: { status: 503 },
  };

  it('answers 503 with Stripe-Should-Retry: false for a call that gave up on overload', async () => {
    const next = jest.fn();
    const res = await underLayer({}, async (res) => {
      retryLayer.errorHandler()(
        gaveUp,
        {} as IncomingMessage,
        res as unknown as ServerResponse,
        next,
      );
      return res;
    });
    expect(next).not.toHaveBeenCalled();
    expect(res.statusCode).toBe(503);
    expect(res.headers[SHOULD_RETRY_HEADER.toLowerCase()]).toBe('false');
  });

  it('passes any other error on, untouched', async () => {
    const next = jest.fn();
    const error = new Error('a bug');
    const res = new FakeResponse();
    retryLayer.errorHandler()(error, {} as IncomingMessage, res as unknown as ServerResponse, next);
    expect(next).toHaveBeenCalledWith(error);
    expect(res.headersSent).toBe(false);
  });

  it('counts a call stopped by its deadline only when the inbound deadline is spent', async () => {
    const deadline = { config: { retryState: { stopReason: 'deadline' } } };
    expect(
      await underLayer({ 'request-deadline-ms': '5000' }, async () => upstreamGaveUp(deadline)),
    ).toBe(false);
    expect(
      await underLayer({ 'request-deadline-ms': '60' }, async () => upstreamGaveUp(deadline)),
    ).toBe(true);
    expect(upstreamGaveUp(deadline)).toBe(false);
  });

  it('answerUpstreamGaveUp writes the answer for plain node:http', () => {
    const res = new FakeResponse();
    answerUpstreamGaveUp(res as unknown as ServerResponse);
    expect(res.statusCode).toBe(503);
    expect(res.headers['stripe-should-retry']).toBe('false');
    expect(JSON.parse(res.body)).toEqual({ error: 'upstream gave up' });
  });
});

describe('retryLayer options', () => {
  it.each<[unknown, string]>([
    [{ maxDeadlineMs: 0 }, '`retryLayer.maxDeadlineMs` must be a number in [1, ∞); got 0.'],
    [{ maxDeadlineMs: Infinity }, '`retryLayer.maxDeadlineMs` must be a number in [1, ∞)'],
    [{ marginMs: -1 }, '`retryLayer.marginMs` must be a number in [0, ∞); got -1.'],
    [{ marginMs: '50' }, '`retryLayer.marginMs` must be a number in [0, ∞); got "50".'],
    [{ margin: 50 }, 'unknown option `retryLayer.margin`'],
    ['fast', '`retryLayer` must be an object; got "fast".'],
    [{ trustInbound: true }, '`retryLayer.trustInbound` must be a function; got true.'],
    [{ trustInbound: 'mesh' }, '`retryLayer.trustInbound` must be a function; got "mesh".'],
  ])('rejects %p', (given, message) => {
    expect(() => retryLayer(given as Parameters<typeof retryLayer>[0])).toThrow(message);
  });
});
