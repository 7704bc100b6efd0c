import fc from 'fast-check';
import {
  causeCodeOf,
  classifyFailure,
  type Failure,
  isRepeatableStatus,
} from '../../src/http/classify';

describe('classifyFailure', () => {
  it.each<[string, Failure, string, boolean]>([
    ['a canceled request', { code: 'ERR_CANCELED' }, 'canceled', false],
    ['a response with a status', { code: 'ERR_BAD_RESPONSE', status: 503 }, 'status', false],
    ['a 4xx response', { code: 'ERR_BAD_REQUEST', status: 404 }, 'status', false],
    ['an axios timeout', { code: 'ECONNABORTED' }, 'transient', false],
    ['a clarified timeout', { code: 'ETIMEDOUT' }, 'transient', false],
    ['a browser network error', { code: 'ERR_NETWORK' }, 'transient', false],
    ['a connection reset', { code: 'ECONNRESET' }, 'transient', false],
    ['a refused connection', { code: 'ECONNREFUSED' }, 'transient', true],
    ['a DNS failure', { code: 'ENOTFOUND' }, 'transient', true],
    ['a temporary DNS failure', { code: 'EAI_AGAIN' }, 'transient', true],
    ['a broken pipe', { code: 'EPIPE' }, 'transient', false],
    ['an unreachable host', { code: 'EHOSTUNREACH' }, 'transient', false],
    ['an unreachable network', { code: 'ENETUNREACH' }, 'transient', false],
    ['a network that is down', { code: 'ENETDOWN' }, 'transient', false],
    ['a host that is down', { code: 'EHOSTDOWN' }, 'transient', false],
    [
      'a refused connection seen by fetch',
      { code: 'ERR_NETWORK', causeCode: 'ECONNREFUSED' },
      'transient',
      true,
    ],
    [
      'a body cut part-way (http adapter: the connection died, or its idle timeout fired)',
      { code: 'ERR_BAD_RESPONSE', status: 200, message: 'stream has been aborted' },
      'transient',
      false,
    ],
    [
      'a body cut part-way (a reset seen on the response stream)',
      { code: 'ECONNRESET', status: 200 },
      'transient',
      false,
    ],
    [
      'a body cut part-way (fetch adapter in Node: undici closed the socket)',
      { causeCode: 'UND_ERR_SOCKET', message: 'terminated' },
      'transient',
      false,
    ],
    [
      'a 5xx status (axios says ERR_BAD_RESPONSE for it too)',
      { code: 'ERR_BAD_RESPONSE', status: 503, message: 'Request failed with status code 503' },
      'status',
      false,
    ],
    [
      'a body too large',
      { code: 'ERR_BAD_RESPONSE', message: 'maxContentLength size of 10 exceeded' },
      'permanent',
      false,
    ],
    [
      'a body that is not valid JSON',
      { code: 'ERR_BAD_RESPONSE', status: 200, message: 'Unexpected token' },
      'status',
      false,
    ],
    ['an invalid URL', { code: 'ERR_INVALID_URL' }, 'permanent', false],
    ['a bad option', { code: 'ERR_BAD_OPTION_VALUE' }, 'permanent', false],
    ['a TLS certificate error', { code: 'CERT_HAS_EXPIRED' }, 'permanent', false],
    ['an error with no code', {}, 'permanent', false],
  ])('%s', (_label, failure, kind, neverSent) => {
    expect(classifyFailure(failure)).toEqual({ kind, neverSent });
  });

  it('treats any failure with a response as a status failure, whatever its code (property)', () => {
    fc.assert(
      fc.property(
        fc.option(fc.string(), { nil: undefined }),
        fc.integer({ min: 100, max: 599 }),
        (code, status) => {
          fc.pre(code !== 'ERR_CANCELED');
          return classifyFailure({ code, status }).kind === 'status';
        },
      ),
    );
  });
});

describe('isRepeatableStatus', () => {
  it.each([408, 429, 500, 503, 599])('accepts %i', (status) => {
    expect(isRepeatableStatus(status)).toBe(true);
  });

  it.each([200, 400, 404, 407, 409, 428, 430, 499, 600])('refuses %i', (status) => {
    expect(isRepeatableStatus(status)).toBe(false);
  });

  it('accepts 408, 429 and 5xx, and no other status (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 599 }), (status) => {
        const expected = status === 408 || status === 429 || status >= 500;
        return isRepeatableStatus(status) === expected;
      }),
    );
  });
});

describe('causeCodeOf', () => {
  it('finds the first code along the cause chain, where fetch keeps the system code', () => {
    const socket = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
    const terminated = new TypeError('terminated', { cause: socket });
    expect(causeCodeOf({ cause: terminated })).toBe('UND_ERR_SOCKET');
    expect(causeCodeOf({ cause: { code: 'ECONNREFUSED', cause: socket } })).toBe('ECONNREFUSED');
    expect(causeCodeOf({ cause: new Error('no code') })).toBeUndefined();
    expect(causeCodeOf(null)).toBeUndefined();
  });
});
