import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import axios, { type AxiosError, type InternalAxiosRequestConfig } from 'axios';
import fc from 'fast-check';
import { attachRetry, type RetryOptions } from '../../src';
import { retryLayer, SHOULD_RETRY_HEADER } from '../../src/server';
import { inboundAttempt, inboundDeadlineMs } from '../../src/server/layer-signals';
import { failureOf } from '../helpers/failure';

// Issue 23: a layer that outside callers cannot steer. Hostile values of the inbound headers
// never raise the attempts a call makes below, nor the time it waits past `maxDeadlineMs`, nor
// throw; a spent deadline starts no attempt and the answer says "don't retry"; `trustInbound`
// lets an edge service ignore the headers. No sockets: a fake request and response, and an
// adapter that answers at once (backoff drawn with `random: () => 0`: no wait).

const MAX_DEADLINE_MS = 2000;

class FakeResponse extends EventEmitter {
  writableFinished = false;
  headersSent = false;
  statusCode = 200;
  readonly headers: Record<string, string> = {};
  setHeader(name: string, value: string) {
    this.headers[name.toLowerCase()] = value;
  }
  hasHeader(name: string) {
    return name.toLowerCase() in this.headers;
  }
  writeHead(statusCode: number) {
    this.statusCode = statusCode;
    this.headersSent = true;
    return this;
  }
  end() {
    // As Node's: headers not yet written go out now, through writeHead.
    if (!this.headersSent) this.writeHead(this.statusCode);
    this.writableFinished = true;
  }
}

/** A client (defaults, no backoff wait) whose every attempt is answered `status` at once. */
function clientAnswering(status: number, options?: RetryOptions) {
  const attempts: InternalAxiosRequestConfig[] = [];
  const client = axios.create({
    adapter: async (config) => {
      attempts.push(config);
      const response = { data: {}, status, statusText: '', headers: {}, config };
      if (status < 400) return response;
      throw new axios.AxiosError('failed', 'ERR_BAD_RESPONSE', config, {}, response);
    },
  });
  attachRetry(client, { random: () => 0, ...options });
  return { client, attempts };
}

interface Handled {
  readonly error: AxiosError | undefined;
  readonly attempts: readonly InternalAxiosRequestConfig[];
  readonly res: FakeResponse;
}

/**
 * One inbound request with these headers under `retryLayer`: its handler makes one call below
 * (answered `status`), then answers 502 itself if the call failed, as most handlers do.
 */
async function handle(
  headers: IncomingMessage['headers'],
  layerOptions: Parameters<typeof retryLayer>[0] = { maxDeadlineMs: MAX_DEADLINE_MS },
  status = 503,
): Promise<Handled> {
  const { client, attempts } = clientAnswering(status);
  const res = new FakeResponse();
  const req = { headers, socket: { remoteAddress: '203.0.113.7' } } as unknown as IncomingMessage;
  const error = await new Promise<AxiosError | undefined>((resolve) => {
    retryLayer(layerOptions)(req, res as unknown as ServerResponse, () => {
      client.get('http://next.test/').then(
        () => {
          res.end();
          resolve(undefined);
        },
        (e: AxiosError) => {
          res.statusCode = 502;
          res.end();
          resolve(e);
        },
      );
    });
  });
  return { error, attempts, res };
}

/** What the call below was allowed: its attempts, and the deadline each carried. */
function expectBounded({ attempts, error }: Handled, noHeader: Handled) {
  expect(error?.isAxiosError).toBe(true);
  expect(attempts.length).toBeLessThanOrEqual(noHeader.attempts.length);
  for (const attempt of attempts) {
    const inherited = (attempt.retry as RetryOptions | undefined)?.deadlineMs;
    if (inherited !== undefined) expect(inherited).toBeLessThanOrEqual(MAX_DEADLINE_MS);
    const sent = attempt.headers['request-deadline-ms'];
    if (sent !== undefined) expect(Number(sent)).toBeLessThanOrEqual(MAX_DEADLINE_MS);
    expect(Number(attempt.headers['retry-attempt'])).toBeLessThanOrEqual(4);
  }
}

describe('hostile inbound headers: bounded, never obeyed past the bounds', () => {
  let noHeader: Handled;
  beforeAll(async () => {
    noHeader = await handle({});
    expect(noHeader.attempts).toHaveLength(4);
  });

  it.each<[string, IncomingMessage['headers']]>([
    ['request-deadline-ms: -1', { 'request-deadline-ms': '-1' }],
    ['request-deadline-ms: 1e309', { 'request-deadline-ms': '1e309' }],
    ['request-deadline-ms: 1e3', { 'request-deadline-ms': '1e3' }],
    ['request-deadline-ms: a 10 KB string', { 'request-deadline-ms': 'x'.repeat(10_240) }],
    ['request-deadline-ms: 10 KB of digits', { 'request-deadline-ms': '9'.repeat(10_240) }],
    ['request-deadline-ms: two values', { 'request-deadline-ms': '1000, 5000' }],
    ['grpc-timeout: garbage', { 'grpc-timeout': '12x' }],
    ['grpc-timeout: too many digits', { 'grpc-timeout': '123456789S' }],
    ['grpc-timeout: hours past the cap', { 'grpc-timeout': '99999999H' }],
    ['retry-attempt: 0', { 'retry-attempt': '0' }],
    ['retry-attempt: -5', { 'retry-attempt': '-5' }],
    ['retry-attempt: 1e9', { 'retry-attempt': '1000000000' }],
    ['retry-attempt: abc', { 'retry-attempt': 'abc' }],
  ])('%s: no more attempts than without it, no deadline past maxDeadlineMs', async (_, headers) => {
    expectBounded(await handle(headers), noHeader);
  });

  it('a deadline past maxDeadlineMs is cut to it', async () => {
    const handled = await handle({ 'request-deadline-ms': '9'.repeat(10_240) });
    const first = handled.attempts[0]!;
    expect((first.retry as RetryOptions).deadlineMs).toBeLessThanOrEqual(MAX_DEADLINE_MS - 50);
    expect((first.retry as RetryOptions).deadlineMs).toBeGreaterThan(MAX_DEADLINE_MS - 500);
  });

  it('any value of the three headers: read as bounded numbers or not at all (property)', () => {
    const value = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.stringMatching(/^-?\d{0,24}(\.\d+)?(e\d+)?[HMSmun]?$/),
      fc.integer().map(String),
    );
    fc.assert(
      fc.property(value, value, value, (deadline, grpc, attempt) => {
        for (const ms of [
          inboundDeadlineMs(deadline, grpc, MAX_DEADLINE_MS),
          inboundDeadlineMs(undefined, grpc, MAX_DEADLINE_MS),
        ]) {
          if (ms !== undefined) {
            expect(ms).toBeGreaterThanOrEqual(0);
            expect(ms).toBeLessThanOrEqual(MAX_DEADLINE_MS);
          }
        }
        const n = inboundAttempt(attempt);
        if (n !== undefined) expect(Number.isInteger(n) && n >= 1 && n < 1e6).toBe(true);
      }),
    );
  });
});

// Under axios before 1.7, a call whose signal is aborted before it starts is rejected with a
// `CanceledError` that has no config (axios 1.1.0's dispatchRequest: `new CanceledError()`), so
// no interceptor can tell which call it was. The layer marks its answer when it aborts such a
// call; but `retryLayer.errorHandler()`, given only that error, cannot know it is one of its
// calls: that one case is skipped, loudly, below axios 1.7 (a known miss).
const AXIOS_VERSION = (axios as { VERSION?: string }).VERSION ?? '0.0.0';
const cancelCarriesConfig = !/^(0\.|1\.[0-6]\.)/.test(AXIOS_VERSION);
if (!cancelCarriesConfig) {
  console.warn(
    `inbound-headers: skipping the error handler's spent-deadline case under axios ${AXIOS_VERSION}`,
  );
}

describe('a spent inbound deadline: no attempt below, and the caller is told not to retry', () => {
  it.each<[string, IncomingMessage['headers']]>([
    ['request-deadline-ms: 0', { 'request-deadline-ms': '0' }],
    ['request-deadline-ms: 00', { 'request-deadline-ms': '00' }],
    ['grpc-timeout: 0m', { 'grpc-timeout': '0m' }],
    ['grpc-timeout: 5n', { 'grpc-timeout': '5n' }],
    ['request-deadline-ms: 1 (less than the margin)', { 'request-deadline-ms': '1' }],
    ['request-deadline-ms: 49 (less than the margin)', { 'request-deadline-ms': '49' }],
  ])('%s', async (_, headers) => {
    const { attempts, error, res } = await handle(headers);
    expect(attempts).toHaveLength(0);
    expect(error?.code).toBe('ERR_CANCELED');
    expect(res.statusCode).toBe(502);
    expect(res.headers[SHOULD_RETRY_HEADER.toLowerCase()]).toBe('false');
  });

  (cancelCarriesConfig ? it : it.skip)(
    'with the error handler too: 503 "don\'t retry", not a 500 the caller would retry',
    async () => {
      const { client } = clientAnswering(200);
      const res = new FakeResponse();
      const req = { headers: { 'request-deadline-ms': '1' } } as unknown as IncomingMessage;
      const next = jest.fn();
      await new Promise<void>((resolve) => {
        retryLayer()(req, res as unknown as ServerResponse, () => {
          failureOf(client.get('http://next.test/')).then((error) => {
            retryLayer.errorHandler()(error, req, res as unknown as ServerResponse, next);
            resolve();
          });
        });
      });
      expect(next).not.toHaveBeenCalled();
      expect(res.statusCode).toBe(503);
      expect(res.headers[SHOULD_RETRY_HEADER.toLowerCase()]).toBe('false');
    },
  );

  it('a deadline with time left is obeyed, and the answer of a call that succeeded is not marked', async () => {
    const { attempts, error, res } = await handle({ 'request-deadline-ms': '1000' }, {}, 200);
    expect(error).toBeUndefined();
    expect(attempts).toHaveLength(1);
    expect(Number(attempts[0]!.headers['request-deadline-ms'])).toBeLessThanOrEqual(950);
    expect(res.headers).not.toHaveProperty('stripe-should-retry');
  });
});

describe('retryLayer({ trustInbound })', () => {
  const spent = { 'request-deadline-ms': '0', 'retry-attempt': '3' };

  it('untrusted: the headers are ignored, the call goes on as if it carried none', async () => {
    const handled = await handle(spent, { trustInbound: () => false });
    expect(handled.attempts).toHaveLength(4);
    expect((handled.attempts[0]!.retry as RetryOptions).deadlineMs).toBeUndefined();
    // Still a layer: the call gave up on overload, so the 502 says "don't retry".
    expect(handled.res.headers[SHOULD_RETRY_HEADER.toLowerCase()]).toBe('false');
  });

  it('trusted (inside the mesh): the headers are read', async () => {
    const trustInbound = (req: IncomingMessage) => req.headers['x-from-mesh'] === '1';
    const inside = await handle({ ...spent, 'x-from-mesh': '1' }, { trustInbound });
    expect(inside.attempts).toHaveLength(0);
    const outside = await handle(spent, { trustInbound });
    expect(outside.attempts).toHaveLength(4);
  });

  it('reads the peer address if asked to', async () => {
    const mesh = (req: IncomingMessage) => req.socket.remoteAddress?.startsWith('10.') === true;
    expect((await handle(spent, { trustInbound: mesh })).attempts).toHaveLength(4);
  });

  it('only `true` trusts: a predicate that throws, or returns a promise or a string, does not', async () => {
    for (const trustInbound of [
      () => {
        throw new Error('no address');
      },
      async () => true,
      () => 'yes',
    ] as unknown as ((req: IncomingMessage) => boolean)[]) {
      expect((await handle(spent, { trustInbound })).attempts).toHaveLength(4);
    }
  });

  it('by default, every request is trusted', async () => {
    expect((await handle(spent, {})).attempts).toHaveLength(0);
  });
});
