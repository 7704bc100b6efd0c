import { AxiosHeaders } from 'axios';
import fc from 'fast-check';
import { putHeader, stampIdempotencyKey } from '../../src/axios/idempotency';
import { readHeader } from '../../src/http/read-header';
import { resolveClientOptions } from '../../src/options/options';

const withKeys = resolveClientOptions({ idempotencyKey: { generate: () => 'k-1' } }).options;

describe('readHeader', () => {
  it('reads a header in any case, from axios headers or a plain object', () => {
    expect(readHeader(new AxiosHeaders({ 'Idempotency-Key': 'a' }), 'idempotency-key')).toBe('a');
    expect(readHeader({ 'IDEMPOTENCY-KEY': 'b' }, 'Idempotency-Key')).toBe('b');
  });

  it.each([
    ['no headers', null],
    ['undefined headers', undefined],
    ['a header set to null', { 'Idempotency-Key': null }],
    ['a header set to undefined', { 'Idempotency-Key': undefined }],
    ['a header set to false (axios: do not send)', { 'Idempotency-Key': false }],
  ])('finds nothing in %s', (_label, headers) => {
    expect(readHeader(headers, 'Idempotency-Key')).toBeUndefined();
  });

  it('reads a header set to true as "true"', () => {
    expect(readHeader({ 'Idempotency-Key': true }, 'Idempotency-Key')).toBe('true');
  });
});

describe('stampIdempotencyKey', () => {
  it('writes a new key into axios headers and into a plain object', () => {
    const headers = new AxiosHeaders();
    expect(stampIdempotencyKey(headers, 'post', withKeys)).toBe('k-1');
    expect(headers.get('Idempotency-Key')).toBe('k-1');
    const plain: Record<string, unknown> = {};
    expect(stampIdempotencyKey(plain, 'patch', withKeys)).toBe('k-1');
    expect(plain).toEqual({ 'Idempotency-Key': 'k-1' });
  });

  it("keeps the caller's key, even with keys off", () => {
    const off = resolveClientOptions().options;
    expect(stampIdempotencyKey({ 'idempotency-key': 'mine' }, 'post', off)).toBe('mine');
  });

  it('writes nothing for a method outside idempotencyKey.methods, or with keys off', () => {
    const headers: Record<string, unknown> = {};
    expect(stampIdempotencyKey(headers, 'get', withKeys)).toBeUndefined();
    expect(stampIdempotencyKey(headers, undefined, withKeys)).toBeUndefined();
    expect(stampIdempotencyKey(headers, 'post', resolveClientOptions().options)).toBeUndefined();
    expect(headers).toEqual({});
  });

  it.each([
    ['an empty string', ''],
    ['a number', 42],
  ])('refuses a generator that returns %s', (_label, key) => {
    const options = resolveClientOptions({
      idempotencyKey: { generate: () => key as string },
    }).options;
    expect(() => stampIdempotencyKey({}, 'post', options)).toThrow(
      /`idempotencyKey.generate\(\)` must be a non-empty string/,
    );
  });
});

describe('putHeader', () => {
  // What the success path writes on every call instead of axios's `headers.set`: the same headers
  // result, whatever spellings and values (a suppressing `false` included) the caller left.
  const spelling = fc.constantFrom('retry-attempt', 'Retry-Attempt', 'RETRY-ATTEMPT', 'accept');
  const value = fc.constantFrom<unknown>('1', 'x', false, undefined, null, 7);
  it('leaves axios headers as headers.set(name, value) does', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(spelling, value), { maxLength: 4 }),
        fc.nat(1e6),
        (given, n) => {
          const before = Object.fromEntries(given);
          const expected = new AxiosHeaders();
          const actual = new AxiosHeaders();
          Object.assign(expected, before);
          Object.assign(actual, before);
          expected.set('retry-attempt', n);
          putHeader(actual as unknown as Record<string, unknown>, 'retry-attempt', n);
          expect({ ...actual }).toEqual({ ...expected });
        },
      ),
    );
  });

  it("writes over the caller's spelling, and keeps a header the caller set to false", () => {
    const headers: Record<string, unknown> = { 'Retry-Attempt': '9', 'Request-Deadline-Ms': false };
    putHeader(headers, 'retry-attempt', 1);
    putHeader(headers, 'request-deadline-ms', 500);
    expect(headers).toEqual({ 'Retry-Attempt': '1', 'Request-Deadline-Ms': false });
  });
});
