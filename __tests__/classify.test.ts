import fc from 'fast-check';
import { classifyFailure, type Failure, isRepeatableStatus } from '../src/classify';

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
